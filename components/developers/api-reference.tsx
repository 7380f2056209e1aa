'use client';

import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { cardClass } from '@/components/ui/card';
import { SelectField, TextField } from '@/components/ui/field';
import type { Theme } from '@/lib/theme';
import { RapiDoc } from './rapi-doc';

/**
 * The reference and what its requests are tried with: one of the person's own tokens (its secret pasted, checked
 * against the first characters the portal knows: the portal keeps only a hash) or any token pasted. The token is in
 * this component's memory only — never in storage, a cookie or a URL — and "Forget it" or leaving the page drops it.
 */

export interface OwnToken {
  id: string;
  name: string;
  prefix: string;
  scope: string;
}

const FORMAT = /^pvt_[A-Za-z0-9_-]{43}$/;
const PASTED = '';

export function ApiReference({ tokens, portalApi, theme }: { tokens: OwnToken[]; portalApi: boolean; theme: Theme }) {
  const [doc, setDoc] = useState<'v1' | 'portal'>('v1');
  const [chosen, setChosen] = useState(tokens[0]?.id ?? PASTED);
  const [typed, setTyped] = useState('');
  const [problem, setProblem] = useState<string | undefined>();
  const [using, setUsing] = useState<{ token: string; who: string } | null>(null);
  const own = tokens.find((t) => t.id === chosen);

  function use(event: React.FormEvent) {
    event.preventDefault();
    const secret = typed.trim();
    if (!FORMAT.test(secret)) return setProblem('The token is pvt_ followed by 43 letters, digits, - or _: paste the whole of it.');
    if (own && !secret.startsWith(own.prefix))
      return setProblem(
        `That is not the token “${own.name}”: its token begins ${own.prefix}…. Choose the token it is, or “a token I paste”.`,
      );
    setProblem(undefined);
    setUsing({ token: secret, who: own ? `your token “${own.name}” (may read ${own.scope})` : 'the token you pasted' });
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
          <TextField
            label={own ? `The token “${own.name}”` : 'The token'}
            name="secret"
            type="password"
            autoComplete="off"
            spellCheck={false}
            value={typed}
            onChange={(e) => setTyped(e.target.value)}
            error={problem}
            placeholder={own ? `${own.prefix}…` : 'pvt_…'}
          />
          <div className="flex items-end gap-2">
            <Button type="submit" tone="primary">
              Use for requests
            </Button>
            {using ? <Button onClick={() => setUsing(null)}>Forget it</Button> : null}
          </div>
          <p className="text-sm text-slate-600 sm:col-span-3" data-testid="try-with" aria-live="polite">
            {using
              ? `“Try” sends ${using.who}, held in this page only: leaving the page forgets it.`
              : tokens.length
                ? 'The portal keeps only a hash of each token: paste the one you chose to try requests with it. Nothing you paste is stored.'
                : 'Make a token on the Tokens page, then paste it here to try requests with it. Nothing you paste is stored.'}
          </p>
        </form>
      ) : (
        <p className="text-sm text-slate-600" data-testid="try-with">
          “Try” sends requests as you, signed in: what changes data changes it, and is in the audit trail.
        </p>
      )}
      <div className="overflow-hidden rounded-lg border border-slate-200" data-testid="api-reference">
        <RapiDoc
          key={doc}
          specUrl={doc === 'v1' ? '/api/v1/openapi.json' : '/api/openapi.json'}
          theme={theme}
          bearer={doc === 'v1' ? (using?.token ?? null) : null}
          credentials={doc === 'v1' ? 'omit' : 'same-origin'}
        />
      </div>
    </div>
  );
}
