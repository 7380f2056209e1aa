'use client';

import { useState } from 'react';
import { Problem, type ApiProblem } from '@/components/ui/call-api';
import { cardClass } from '@/components/ui/card';
import { Button } from '@/components/ui/button';
import { FileField } from '@/components/ui/field';
import type { CheckReport } from '@/lib/proof/check-answer';

/** "Check a file": the file and its JWS (optionally the manifest) posted to /api/proof/check; each check's result shown. */

export function CheckFileForm({ maxMb }: { maxMb: number }) {
  const [result, setResult] = useState<CheckReport | null>(null);
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setBusy(true);
    setProblem(null);
    setResult(null);
    try {
      const res = await fetch('/api/proof/check', { method: 'POST', body: new FormData(event.currentTarget) });
      const body = (await res.json()) as CheckReport | { error: ApiProblem };
      if ('error' in body) setProblem(body.error);
      else setResult(body);
    } catch {
      setProblem({ message: 'The portal could not be reached. Try again.' });
    } finally {
      setBusy(false);
    }
  }

  return (
    <form id="check-file" onSubmit={submit} className={cardClass('space-y-3 p-4 text-sm')} aria-label="Check a file">
      <p className="text-slate-600">
        Every file the portal delivers comes with a signature. Give the file and its signature here to learn whether it is whole and came
        from this portal; nothing is kept.
      </p>
      <div className="grid gap-3 md:grid-cols-3">
        <FileField label="The file" name="file" hint={`CSV, JSON, JSON Lines or Parquet, up to ${maxMb} MB`} required />
        <FileField label="Its signature" name="jws" hint="The file’s .manifest.jws" accept=".jws,text/plain,application/jose" required />
        <FileField label="Its manifest" name="manifest" hint="Optional: the .manifest.json" accept=".json,application/json" />
      </div>
      <Button type="submit" tone="primary" disabled={busy}>
        {busy ? 'Checking…' : 'Check'}
      </Button>
      <Problem problem={problem} testId="check-problem" />
      {result ? (
        <div role="status" data-testid="check-result" data-ok={result.ok ? 'yes' : 'no'}>
          <p className={`font-medium ${result.ok ? 'text-emerald-800' : 'text-red-800'}`}>
            {result.ok
              ? 'Verified: every check holds.'
              : `Not verified: ${result.checks
                  .filter((c) => !c.ok)
                  .map((c) => c.name)
                  .join(', ')}.`}
          </p>
          <ul className="mt-2 space-y-1">
            {result.checks.map((c) => (
              <li key={c.name} data-check={c.name} data-ok={c.ok ? 'yes' : 'no'}>
                <span className={c.ok ? 'text-emerald-800' : 'text-red-800'}>{c.ok ? '✓' : '✗'}</span> <strong>{c.name}</strong>: {c.detail}
              </li>
            ))}
          </ul>
          {result.notes.length > 0 && (
            <ul className="mt-2 space-y-1 text-slate-600" data-testid="check-notes">
              {result.notes.map((note) => (
                <li key={note}>Not checked here: {note}</li>
              ))}
            </ul>
          )}
          <pre className="mt-2 overflow-x-auto whitespace-pre-wrap text-xs text-slate-700">{result.attestation.join('\n')}</pre>
        </div>
      ) : null}
    </form>
  );
}
