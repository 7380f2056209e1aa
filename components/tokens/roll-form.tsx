'use client';

import { useState } from 'react';
import { useRouter } from 'next/navigation';
import { Button } from '@/components/ui/button';
import { callApi, Problem, type ApiProblem } from '@/components/ui/call-api';
import { cardClass } from '@/components/ui/card';
import { SelectField } from '@/components/ui/field';
import { SecretBox } from '@/components/ui/secret-box';
import { useHydrated } from '@/components/ui/use-hydrated';

/**
 * Roll a token's secret without downtime: a new secret, shown once, and the old one working for the overlap chosen
 * (none to 7 days) while the system that uses it is moved over; then refused. Its settings, scope and webhooks stay.
 */

const OVERLAPS = [
  { value: '0', label: 'None: refuse the old secret now' },
  { value: '1', label: '1 hour' },
  { value: '24', label: '24 hours' },
  { value: '72', label: '3 days' },
  { value: '168', label: '7 days' },
];

export function RollForm({ id, name }: { id: string; name: string }) {
  const router = useRouter();
  const hydrated = useHydrated();
  const [overlap, setOverlap] = useState('24');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const roll = async () => {
    const hours = Number(overlap);
    const warning =
      hours === 0
        ? `Roll ${name}? Its current secret is refused at once: every system using it stops until it has the new one.`
        : `Roll ${name}? Its current secret keeps working for ${OVERLAPS.find((o) => o.value === overlap)!.label}, then is refused.`;
    if (!window.confirm(warning)) return;
    setBusy(true);
    setProblem(null);
    const answer = await callApi(`/api/tokens/${id}/roll`, { method: 'POST', body: JSON.stringify({ overlapHours: hours }) });
    setBusy(false);
    if (!answer.ok) return setProblem(answer.problem);
    setSecret((answer.body as { token: string }).token);
    router.refresh();
  };
  return (
    <section aria-labelledby="roll" className={cardClass('space-y-3 p-4 text-sm')} data-testid="roll">
      <h2 id="roll" className="font-semibold">
        Roll the secret
      </h2>
      <p className="text-slate-600">
        A new secret for this token: its settings, scope, use and webhooks stay. The old secret keeps working for the overlap you choose,
        while the system that uses it is moved to the new one; both show their last use above.
      </p>
      <div className="flex flex-wrap items-end gap-3">
        <SelectField
          label="The old secret works for"
          name="overlap"
          options={OVERLAPS}
          value={overlap}
          onChange={(e) => setOverlap(e.target.value)}
        />
        <Button tone="secondary" disabled={busy || !hydrated} onClick={() => void roll()}>
          Roll the secret
        </Button>
      </div>
      <Problem problem={problem} testId="roll-problem" />
      {secret && <SecretBox title={`The new secret of “${name}”`} value={secret} testId="rolled-token" />}
    </section>
  );
}
