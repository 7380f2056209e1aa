'use client';

import { Button } from '@/components/ui/button';
import { PageTitle } from '@/components/ui/page-header';

/**
 * Last resort for faults no page caught, inside the root layout's frame (its <main>). Server error details never
 * reach here in production, only a digest.
 */
export default function ErrorPage({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <div className="mx-auto max-w-xl px-4 py-16 text-center" role="alert">
      <PageTitle>Something went wrong</PageTitle>
      <p className="mt-2 text-slate-600">The portal hit an unexpected error. Nothing was changed.</p>
      {error.digest && <p className="mt-2 font-mono text-xs text-slate-500">Reference {error.digest}</p>}
      <Button tone="primary" onClick={reset} className="mt-6">
        Try again
      </Button>
    </div>
  );
}
