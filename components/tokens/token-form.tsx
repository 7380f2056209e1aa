'use client';

import { useState } from 'react';
import { useRouter } from 'next/navigation';
import { Button } from '@/components/ui/button';
import { callApi, Problem, type ApiProblem, type ProblemField } from '@/components/ui/call-api';
import { TextField, labelClass } from '@/components/ui/field';
import type { TokenView } from '@/lib/tokens/view';
import { cardClass } from '@/components/ui/card';
import { SecretBox } from '@/components/ui/secret-box';
import { leaguesForSports, type Vocabulary } from '@/lib/sport-leagues';
import { CONTENT, CONTENT_LABELS } from '@/lib/vocabulary/tokens';

/**
 * Making or changing an API token (POST /api/tokens, PATCH /api/tokens/<id>): its name, what it may read
 * (content; sports and leagues ticked from the licence — none ticked is all of them; an optional window of
 * event dates), its expiry and limits. Every wrong field is named at once. A new token is shown once, here,
 * with a way to copy it: the portal keeps only its hash.
 */

const dateOf = (iso: string | null | undefined) => (iso ? iso.slice(0, 10) : '');
const utcStart = (day: FormDataEntryValue | null) => (day ? `${String(day)}T00:00:00Z` : null);

function Choices({
  legend,
  name,
  options,
  chosen,
  hint,
  error,
  onTick,
}: {
  legend: string;
  name: string;
  options: string[];
  chosen: string[];
  hint: string;
  error?: string;
  /** Told the ticked values whenever one is ticked or unticked. */
  onTick?: (ticked: string[]) => void;
}) {
  return (
    <fieldset
      id={`tok-${name}`}
      className="md:col-span-2"
      onChange={(event) =>
        onTick?.([...event.currentTarget.querySelectorAll<HTMLInputElement>(`input[name="${name}"]:checked`)].map((box) => box.value))
      }
    >
      <legend className={labelClass()}>{legend}</legend>
      <div className="mt-1 flex flex-wrap gap-x-5 gap-y-1">
        {options.map((option) => (
          <label key={option} className="flex items-center gap-1.5">
            <input type="checkbox" name={name} value={option} defaultChecked={chosen.includes(option)} />
            {option}
          </label>
        ))}
      </div>
      <p className="mt-1 text-xs text-slate-500">{hint}</p>
      {error && <p className="mt-1 text-xs text-red-700">{error}</p>}
    </fieldset>
  );
}

/** The fields of the form in the order they appear, as the problem summary names them, with their controls' ids. */
const FIELDS: readonly ProblemField[] = [
  { key: 'name', label: 'Name', id: 'tok-name' },
  { key: 'expiresAt', label: 'Expires', id: 'tok-expires' },
  { key: 'scope.content', label: 'Content', id: 'tok-content' },
  { key: 'ratePerMinute', label: 'Requests a minute', id: 'tok-rate' },
  { key: 'dailyRecords', label: 'Records a day', id: 'tok-daily' },
  { key: 'scope.sports', label: 'Sports', id: 'tok-sports' },
  { key: 'scope.leagues', label: 'Leagues', id: 'tok-leagues' },
  { key: 'scope.from', label: 'Events from', id: 'tok-from' },
  { key: 'scope.to', label: 'Events before', id: 'tok-to' },
];

export function TokenForm({
  licence,
  token,
  defaultExpires,
}: {
  licence: Vocabulary;
  token?: TokenView;
  /** YYYY-MM-DD: the expiry a new token is offered. */
  defaultExpires?: string;
}) {
  const router = useRouter();
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const [created, setCreated] = useState<{ id: string; token: string; name: string } | null>(null);
  const [note, setNote] = useState('');
  const errors = problem?.details ?? {};
  const scope = token?.scope;
  // Leagues follow the sports ticked (none ticked: every league); a new form starts from nothing ticked.
  const [sports, setSports] = useState<string[]>(scope?.sports ?? []);
  const leagues = leaguesForSports(licence, sports);
  return (
    <section aria-labelledby="token-form" className={cardClass('space-y-3 p-4 text-sm')}>
      <h2 id="token-form" className="font-semibold">
        {token ? 'Change this token' : 'Make a token'}
      </h2>
      {created && <SecretBox title={`The token “${created.name}”`} value={created.token} testId="new-token" />}
      <form
        aria-label={token ? `Change the token ${token.name}` : 'Make a token'}
        className="grid gap-3 md:grid-cols-2"
        // The portal names every wrong field at once; the browser's checks would name one at a time.
        noValidate
        onSubmit={async (event) => {
          event.preventDefault();
          const form = event.currentTarget; // React lets go of currentTarget once the handler awaits
          const data = new FormData(form);
          const body = {
            name: data.get('name'),
            scope: {
              content: data.getAll('content'),
              sports: data.getAll('sports'),
              leagues: data.getAll('leagues'),
              from: utcStart(data.get('from')),
              to: utcStart(data.get('to')),
            },
            expiresAt: utcStart(data.get('expires')) ?? '',
            ratePerMinute: Number(data.get('rate')),
            dailyRecords: Number(data.get('daily')),
          };
          const answer = await callApi(token ? `/api/tokens/${token.id}` : '/api/tokens', {
            method: token ? 'PATCH' : 'POST',
            body: JSON.stringify(body),
          });
          if (!answer.ok) return setProblem(answer.problem);
          setProblem(null);
          if (!token) {
            const made = answer.body as { id: string; token: string; name: string };
            setCreated(made);
            // The next token starts clean: no scope, name or window carried over from this one.
            form.reset();
            setSports([]);
          } else setNote('Saved: every instance uses it within 10 seconds.');
          router.refresh();
        }}
      >
        <TextField
          label="Name (the system that uses it)"
          name="name"
          defaultValue={token?.name}
          required
          error={errors.name}
          id="tok-name"
        />
        <TextField
          label="Expires (UTC)"
          name="expires"
          type="date"
          required
          defaultValue={token ? dateOf(token.expiresAt) : defaultExpires}
          error={errors.expiresAt}
          id="tok-expires"
        />
        <fieldset id="tok-content">
          <legend className={labelClass()}>Content</legend>
          <div className="mt-1 flex gap-5">
            {CONTENT.map((content) => (
              <label key={content} className="flex items-center gap-1.5">
                <input
                  type="checkbox"
                  name="content"
                  value={content}
                  defaultChecked={scope ? scope.content.includes(content) : content !== 'changes'}
                />
                {CONTENT_LABELS[content]}
              </label>
            ))}
          </div>
          {errors['scope.content'] && <p className="mt-1 text-xs text-red-700">{errors['scope.content']}</p>}
        </fieldset>
        <div className="grid grid-cols-2 gap-3">
          <TextField
            label="Requests a minute"
            name="rate"
            type="number"
            min={1}
            required
            defaultValue={token?.ratePerMinute ?? 60}
            error={errors.ratePerMinute}
            id="tok-rate"
          />
          <TextField
            label="Records a day"
            name="daily"
            type="number"
            min={1}
            required
            defaultValue={token?.dailyRecords ?? 100_000}
            error={errors.dailyRecords}
            id="tok-daily"
          />
        </div>
        <Choices
          legend="Sports"
          name="sports"
          options={licence.sports ?? []}
          chosen={scope?.sports ?? []}
          hint={
            licence.unread
              ? 'The licence could not be read just now, so its sports are not listed: reload to choose from them. None ticked: every sport the licence grants, now and later.'
              : 'None ticked: every sport the licence grants, now and later.'
          }
          error={errors['scope.sports']}
          onTick={setSports}
        />
        <Choices
          legend="Leagues"
          name="leagues"
          options={leagues}
          chosen={scope?.leagues ?? []}
          hint="None ticked: every league of those sports. Ticked: only these leagues."
          error={errors['scope.leagues']}
        />
        <TextField
          label="Events from (UTC, optional)"
          name="from"
          type="date"
          defaultValue={dateOf(scope?.from)}
          error={errors['scope.from']}
          id="tok-from"
        />
        <TextField
          label="Events before (UTC, optional)"
          name="to"
          type="date"
          defaultValue={dateOf(scope?.to)}
          error={errors['scope.to']}
          id="tok-to"
        />
        <div className="flex items-center gap-3 md:col-span-2">
          <Button type="submit" tone="primary">
            {token ? 'Save' : 'Make token'}
          </Button>
          <span role="status" className="text-xs text-slate-600" data-testid="token-note">
            {note}
          </span>
        </div>
        <div className="md:col-span-2">
          <Problem problem={problem} testId="token-problem" fields={FIELDS} />
        </div>
      </form>
    </section>
  );
}

export function RevokeButton({ id, name }: { id: string; name: string }) {
  const router = useRouter();
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  return (
    <div className="space-y-2">
      <Button
        size="sm"
        tone="remove"
        onClick={async () => {
          if (!window.confirm(`Revoke ${name}? Every system using it is refused within 10 seconds. This cannot be undone.`)) return;
          const answer = await callApi(`/api/tokens/${id}`, { method: 'DELETE' });
          if (!answer.ok) return setProblem(answer.problem);
          router.refresh();
        }}
      >
        Revoke
      </Button>
      <Problem problem={problem} testId="revoke-problem" />
    </div>
  );
}
