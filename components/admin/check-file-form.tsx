'use client';

import { useState } from 'react';
import { Problem, type ApiProblem } from '@/components/ui/call-api';
import { cardClass } from '@/components/ui/card';

/** "Check a file": the file and its JWS (optionally the manifest) posted to /api/proof/check; each check's result shown. */

interface Result {
  ok: boolean;
  checks: { name: string; ok: boolean; detail: string }[];
  attestation: string[];
}

export function CheckFileForm({ maxMb }: { maxMb: number }) {
  const [result, setResult] = useState<Result | null>(null);
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setBusy(true);
    setProblem(null);
    setResult(null);
    try {
      const res = await fetch('/api/proof/check', { method: 'POST', body: new FormData(event.currentTarget) });
      const body = (await res.json()) as Result | { error: ApiProblem };
      if ('error' in body) setProblem(body.error);
      else setResult(body);
    } catch {
      setProblem({ message: 'The portal could not be reached. Try again.' });
    } finally {
      setBusy(false);
    }
  }

  return (
    <form onSubmit={submit} className={cardClass('space-y-3 p-4 text-sm')} aria-label="Check a file">
      <div className="grid gap-3 md:grid-cols-3">
        <label className="block">
          <span className="font-medium text-slate-700">File (CSV or JSON, up to {maxMb} MB)</span>
          <input className="mt-1 block w-full" type="file" name="file" required />
        </label>
        <label className="block">
          <span className="font-medium text-slate-700">Its signature (.manifest.jws)</span>
          <input className="mt-1 block w-full" type="file" name="jws" accept=".jws,text/plain,application/jose" required />
        </label>
        <label className="block">
          <span className="font-medium text-slate-700">Its manifest (optional)</span>
          <input className="mt-1 block w-full" type="file" name="manifest" accept=".json,application/json" />
        </label>
      </div>
      <button type="submit" disabled={busy} className="rounded-md bg-brand-700 px-3 py-1.5 font-medium text-white disabled:opacity-60">
        {busy ? 'Checking…' : 'Check'}
      </button>
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
          <pre className="mt-2 overflow-x-auto whitespace-pre-wrap text-xs text-slate-700">{result.attestation.join('\n')}</pre>
        </div>
      ) : null}
    </form>
  );
}
