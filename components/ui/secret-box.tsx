'use client';

import { useState } from 'react';
import { Button } from '@/components/ui/button';

/**
 * A secret shown once (a new API token, a generated password): the same yellow box everywhere, the value in
 * monospace to copy by hand, a Copy button, and what the person must know — it will not be shown again.
 */
export function SecretBox({
  title,
  value,
  testId,
  kept = 'the portal keeps only a hash of it',
}: {
  title: string;
  value: string;
  testId: string;
  /** What the portal keeps of it. */
  kept?: string;
}) {
  const [copied, setCopied] = useState(false);
  return (
    <div role="status" className="space-y-2 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm" data-testid={testId}>
      <p className="font-medium">
        {title}: copy it now. It is shown only once; {kept}.
      </p>
      <code className="block break-all rounded bg-white px-2 py-1 font-mono text-xs" data-testid={`${testId}-value`}>
        {value}
      </code>
      <div className="flex items-center gap-3">
        <Button
          size="sm"
          tone="secondary"
          onClick={() =>
            void navigator.clipboard?.writeText(value).then(
              () => setCopied(true),
              () => setCopied(false),
            )
          }
        >
          Copy
        </Button>
        {copied && <span className="text-xs text-slate-600">Copied.</span>}
      </div>
    </div>
  );
}
