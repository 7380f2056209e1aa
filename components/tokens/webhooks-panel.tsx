'use client';

import { useState } from 'react';
import { useRouter } from 'next/navigation';
import type { EndpointView } from '@/lib/webhooks/view';
import { EVENT_TYPES } from '@/lib/vocabulary/tokens';
import { Button } from '@/components/ui/button';
import { callApi, Problem, type ApiProblem } from '@/components/ui/call-api';
import { cardClass } from '@/components/ui/card';
import { labelClass, TextField } from '@/components/ui/field';
import { SecretBox } from '@/components/ui/secret-box';
import { WebhookEndpoint } from './webhook-endpoint';

/**
 * A token's consumer webhooks (docs/api-v1.md, "Consumer webhooks"): its events pushed to the partner's systems,
 * signed as Standard Webhooks, in order, from the next event on. The form registers one (a URL, the event types,
 * a secret or none: the portal then makes one and shows it once).
 */

const FIELDS = [
  { key: 'url', label: 'URL', id: 'f-webhook-url' },
  { key: 'kinds', label: 'Event types', id: 'f-webhook-kinds' },
  { key: 'secret', label: 'Secret', id: 'f-webhook-secret' },
] as const;

export function WebhooksPanel({
  tokenId,
  endpoints,
  paused,
  readsChanges,
}: {
  tokenId: string;
  endpoints: EndpointView[];
  /** Why none of its webhooks sends now (the token suspended, say). */
  paused: string | null;
  readsChanges: boolean;
}) {
  const router = useRouter();
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const unconfirmed = endpoints.filter((e) => e.state === 'unconfirmed').length;
  return (
    <section aria-labelledby="webhooks" className="space-y-3" data-testid="webhooks">
      <div className={cardClass('space-y-2 p-4 text-sm')}>
        <h2 id="webhooks" className="font-semibold">
          Webhooks
        </h2>
        <p className="text-slate-600">
          Each event of this token’s stream, pushed to your systems as it happens: signed as{' '}
          <a className="underline" href="https://www.standardwebhooks.com/" rel="noreferrer">
            Standard Webhooks
          </a>{' '}
          (check them with its libraries), in order, each until your server answers 2xx — tried again for up to a day, then given up. A
          webhook failing for 3 days is disabled and you are alerted.
        </p>
        {paused && (
          <p className="text-amber-800" data-testid="webhooks-paused">
            Nothing is sent now: {paused.replace(/^its token/, 'this token')}.
          </p>
        )}
        {unconfirmed > 0 && (
          <p className="text-amber-800" data-testid="webhooks-unconfirmed">
            {unconfirmed === 1 ? 'One webhook waits' : `${unconfirmed} webhooks wait`} for this token’s owner to confirm where its events
            go: {unconfirmed === 1 ? 'it sends' : 'they send'} nothing until then.
          </p>
        )}
      </div>
      {endpoints.map((endpoint) => (
        <WebhookEndpoint key={endpoint.id} tokenId={tokenId} endpoint={endpoint} />
      ))}
      {!readsChanges ? (
        <p className={cardClass('p-4 text-sm text-slate-600')} data-testid="webhooks-need-changes">
          This token does not read changes (events): tick “changes (events)” in its scope below to push them to a webhook.
        </p>
      ) : (
        <form
          aria-label="Add a webhook"
          className={cardClass('space-y-3 p-4 text-sm')}
          onSubmit={async (event) => {
            event.preventDefault();
            const form = event.currentTarget;
            const data = new FormData(form);
            const given = String(data.get('secret') ?? '').trim();
            setBusy(true);
            setProblem(null);
            setSecret(null);
            const answer = await callApi(`/api/tokens/${tokenId}/webhooks`, {
              method: 'POST',
              body: JSON.stringify({
                url: String(data.get('url') ?? ''),
                kinds: data.getAll('kinds').map(String),
                ...(given ? { secret: given } : {}),
              }),
            });
            setBusy(false);
            if (!answer.ok) return setProblem(answer.problem);
            setSecret((answer.body as { secret: string | null }).secret);
            form.reset();
            router.refresh();
          }}
        >
          <h3 className="font-semibold">Add a webhook</h3>
          <TextField
            label="URL"
            name="url"
            id="f-webhook-url"
            type="url"
            required
            placeholder="https://hooks.example.com/picks"
            autoComplete="off"
            error={problem?.details?.url}
          />
          <fieldset id="f-webhook-kinds" className="space-y-1">
            <legend className={labelClass()}>Event types</legend>
            <div className="flex flex-wrap gap-x-4 gap-y-1">
              {EVENT_TYPES.map((kind) => (
                <label key={kind} className="flex items-center gap-1.5">
                  <input type="checkbox" name="kinds" value={kind} defaultChecked /> {kind}
                </label>
              ))}
            </div>
            {problem?.details?.kinds && <p className="text-xs text-red-700">{problem.details.kinds}</p>}
          </fieldset>
          <TextField
            label="Secret (optional)"
            name="secret"
            id="f-webhook-secret"
            autoComplete="off"
            hint="whsec_ and 24–64 bytes in base64. Leave it empty and the portal makes one, shown once."
            error={problem?.details?.secret}
          />
          <Button type="submit" tone="primary" disabled={busy}>
            Add webhook
          </Button>
          <Problem problem={problem} testId="webhooks-problem" fields={FIELDS} />
          {secret && (
            <SecretBox
              title="The webhook’s signing secret"
              value={secret}
              testId="webhook-secret"
              kept="the portal keeps it sealed, to sign with"
            />
          )}
        </form>
      )}
    </section>
  );
}
