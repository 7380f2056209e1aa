'use client';

import type { Exchange } from '@/lib/vocabulary/exchange';
import { CodeBlock } from '@/components/ui/code-block';
import { labelClass } from '@/components/ui/field';

/**
 * One webhook attempt as it went: the request the portal sent (its headers — the signature, never the secret — and
 * its body) and the receiver's answer (status, headers, the start of its body), each saying when it was cut.
 */

const kb = (bytes: number) => `${(bytes / 1024).toFixed(bytes < 10_240 ? 1 : 0)} KB`;
const pretty = (body: string) => {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
};
const headerLines = (headers: Record<string, string>) =>
  Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}`)
    .join('\n');

function Body({ body, bytes, label }: { body: string; bytes: number; label: string }) {
  const kept = new TextEncoder().encode(body).length;
  const cut = kept < bytes;
  return (
    <>
      {body ? <CodeBlock label={label}>{cut ? body : pretty(body)}</CodeBlock> : <p className="text-slate-600">No body.</p>}
      {cut && (
        <p className="text-xs text-slate-600">
          The first {kb(kept)} of {kb(bytes)}: the rest was not kept.
        </p>
      )}
    </>
  );
}

export function AttemptExchange({ exchange, problem, title }: { exchange: Exchange; problem: string | null; title: string }) {
  const { request, response } = exchange;
  return (
    <div className="grid gap-4 md:grid-cols-2" data-testid="attempt-exchange">
      <div className="min-w-0 space-y-2">
        <h4 className={labelClass()}>Sent ({title})</h4>
        <CodeBlock label="Headers sent">{headerLines(request.headers)}</CodeBlock>
        <Body body={request.body} bytes={request.bytes} label="Body sent" />
      </div>
      <div className="min-w-0 space-y-2">
        <h4 className={labelClass()}>Answered</h4>
        {response ? (
          <>
            <p>HTTP {response.status}</p>
            <CodeBlock label="Headers answered">{headerLines(response.headers)}</CodeBlock>
            <Body body={response.body} bytes={response.bytes} label="Body answered" />
          </>
        ) : (
          <p className="text-slate-600">No answer{problem ? `: ${problem}` : ''}.</p>
        )}
      </div>
    </div>
  );
}
