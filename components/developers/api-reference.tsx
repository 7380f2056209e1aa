'use client';

import { useCallback, useState } from 'react';
import { Button } from '@/components/ui/button';
import { cardClass } from '@/components/ui/card';
import { SelectField, TextField } from '@/components/ui/field';
import type { Theme } from '@/lib/theme';
import { RapiDoc, type TriedRequest } from './rapi-doc';

/**
 * The reference and what its requests are tried with: one of the person's own tokens — the portal keeps only a hash
 * of it, so Try asks API v1 through /api/developers/try/<id>, which acts as that token for its signed-in owner — or
 * any token pasted, sent as `Authorization: Bearer` to /api/v1 itself. A pasted token is in this component's memory
 * only — never in storage, a cookie or a URL — and "Forget it" or leaving the page drops it.
 */

export interface OwnToken {
  id: string;
  name: string;
  prefix: string;
  scope: string;
}

const FORMAT = /^pvt_[A-Za-z0-9_-]{43}$/;
const PASTED = '';

/** Sends a request shown for API v1 through the portal's Try route, as the person's own token `id`. */
function throughPortal(id: string) {
  return (request: TriedRequest) => {
    const asked = new URL(request.url, window.location.href);
    request.url = `/api/developers/try/${encodeURIComponent(id)}?url=${encodeURIComponent(`${asked.pathname}${asked.search}`)}`;
    request.headers.delete('Authorization');
    request.headers.set('X-Portal-Try', '1');
    request.credentials = 'same-origin';
  };
}

export function ApiReference({ tokens, portalApi, theme }: { tokens: OwnToken[]; portalApi: boolean; theme: Theme }) {
  const [doc, setDoc] = useState<'v1' | 'portal'>('v1');
  const [chosen, setChosen] = useState(tokens[0]?.id ?? PASTED);
  const [typed, setTyped] = useState('');
  const [problem, setProblem] = useState<string | undefined>();
  const [pasted, setPasted] = useState<string | null>(null);
  const own = tokens.find((t) => t.id === chosen);
  const beforeTry = useCallback((request: TriedRequest) => (own ? throughPortal(own.id)(request) : undefined), [own]);

  function use(event: React.FormEvent) {
    event.preventDefault();
    const secret = typed.trim();
    if (!FORMAT.test(secret)) return setProblem('The token is pvt_ followed by 43 letters, digits, - or _: paste the whole of it.');
    setProblem(undefined);
    setPasted(secret);
    setTyped('');
  }

  return (
    <div className="space-y-4">
      {portalApi ? (
        <div className="max-w-xs">
          <SelectField
            label="Reference"
            name="document"
            value={doc}
            onChange={(e) => setDoc(e.target.value as 'v1' | 'portal')}
            options={[
              { value: 'v1', label: 'API v1 (tokens)' },
              { value: 'portal', label: 'The portal’s own API (signed in)' },
            ]}
          />
        </div>
      ) : null}
      {doc === 'v1' ? (
        <form onSubmit={use} aria-label="The token to try requests with" className={cardClass('grid gap-3 p-4 sm:grid-cols-3')} noValidate>
          <SelectField
            label="Try requests with"
            name="token"
            value={chosen}
            onChange={(e) => {
              setChosen(e.target.value);
              setProblem(undefined);
            }}
            options={[
              ...tokens.map((t) => ({ value: t.id, label: `${t.name} (${t.prefix}…)` })),
              { value: PASTED, label: 'a token I paste' },
            ]}
          />
          {own ? null : (
            <>
              <TextField
                label="The token"
                name="secret"
                type="password"
                autoComplete="off"
                spellCheck={false}
                value={typed}
                onChange={(e) => setTyped(e.target.value)}
                error={problem}
                placeholder="pvt_…"
              />
              <div className="flex items-end gap-2">
                <Button type="submit" tone="primary">
                  Use for requests
                </Button>
                {pasted ? <Button onClick={() => setPasted(null)}>Forget it</Button> : null}
              </div>
            </>
          )}
          <p className="text-sm text-slate-600 sm:col-span-3" data-testid="try-with" aria-live="polite">
            {own
              ? `“Try” asks API v1 as your token “${own.name}” (may read ${own.scope}), counted to its use and limits. The portal sends it for you: its secret is not needed here.`
              : pasted
                ? '“Try” sends the token you pasted, held in this page only: leaving the page forgets it.'
                : 'Paste a token to try requests with it. Nothing you paste is stored.'}
          </p>
        </form>
      ) : (
        <p className="text-sm text-slate-600" data-testid="try-with">
          “Try” sends requests as you, signed in: what changes data changes it, and is in the audit trail.
        </p>
      )}
      <div className={cardClass('overflow-hidden')} data-testid="api-reference">
        <RapiDoc
          key={doc}
          specUrl={doc === 'v1' ? '/api/v1/openapi.json' : '/api/openapi.json'}
          theme={theme}
          bearer={doc !== 'v1' ? null : own ? `${own.prefix}...` : pasted}
          credentials={doc === 'v1' ? 'omit' : 'same-origin'}
          beforeTry={doc === 'v1' ? beforeTry : undefined}
        />
      </div>
    </div>
  );
}
