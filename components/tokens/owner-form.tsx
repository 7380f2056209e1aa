'use client';

import { useState } from 'react';
import { useRouter } from 'next/navigation';
import { Button } from '@/components/ui/button';
import { callApi, Problem, type ApiProblem } from '@/components/ui/call-api';
import { TextField } from '@/components/ui/field';
import { cardClass } from '@/components/ui/card';

/**
 * "Give to another owner" (admins; PATCH /api/tokens/<id> with { owner }): when a token's owner leaves, the
 * partner's system keeps its token and runs on under someone who may hold tokens. Audited as token.reassign.
 */
export function OwnerForm({ id, owner }: { id: string; owner: string }) {
  const router = useRouter();
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <form
      aria-label="Give to another owner"
      className={cardClass('space-y-2 p-4 text-sm')}
      onSubmit={async (event) => {
        event.preventDefault();
        const form = event.currentTarget;
        setBusy(true);
        setProblem(null);
        const answer = await callApi(`/api/tokens/${id}`, {
          method: 'PATCH',
          body: JSON.stringify({ owner: String(new FormData(form).get('owner') ?? '') }),
        });
        setBusy(false);
        if (!answer.ok) return setProblem(answer.problem);
        form.reset();
        router.refresh();
      }}
    >
      <h2 className="font-semibold">Give to another owner</h2>
      <p className="text-slate-600">
        It acts for its owner, now {owner}: when they leave or lose the right to hold tokens it stops. Give it to someone who may hold
        tokens and the system using it runs on with the same token.
      </p>
      <TextField label="New owner’s email" name="owner" type="email" required autoComplete="off" error={problem?.details?.owner} />
      <Button type="submit" size="sm" disabled={busy}>
        Give it to them
      </Button>
      <Problem problem={problem} testId="owner-problem" />
    </form>
  );
}
