'use client';

import { useState } from 'react';

/**
 * A long hash shortened to its first characters (the whole on hover), with a button that copies the whole: a table
 * keeps its width, and the hash is still one click from a terminal (sha256sum, npm run audit -- verify).
 */
export function CopyHash({ value, label = 'sha256' }: { value: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <span className="inline-flex items-center gap-1 whitespace-nowrap" title={value} data-hash={value}>
      <span className="font-mono text-xs">{value.slice(0, 8)}…</span>
      <button
        type="button"
        className="rounded px-1 text-xs text-brand-700 underline hover:bg-slate-100"
        aria-label={`Copy the whole ${label}`}
        onClick={() =>
          void navigator.clipboard?.writeText(value).then(
            () => setCopied(true),
            () => setCopied(false),
          )
        }
      >
        {copied ? 'copied' : 'copy'}
      </button>
    </span>
  );
}
