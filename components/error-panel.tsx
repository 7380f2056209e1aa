import { PortalLink } from '@/components/portal-link';
import { errorTitle, type AppErrorJson } from '@/lib/errors';
import { buttonClass } from '@/components/ui/button';
import { Notice } from '@/components/ui/notice';

/** An upstream or portal error as a person can act on it. Never looks like an empty result. */
export function ErrorPanel({ error, retryHref }: { error: AppErrorJson; retryHref: string }) {
  const details = Object.entries(error.details ?? {});
  // The portal's own parsers put each field's problem in details and in the message: say each once, as a list.
  const problems = details.length > 0 && details.every(([key, problem]) => error.message.includes(`${key} ${problem}`));
  return (
    <Notice as="section" tone="danger" role="alert" aria-labelledby="error-title" data-error-code={error.code}>
      <h2 id="error-title" className="text-base font-semibold">
        {errorTitle(error.code)}
      </h2>
      <p className="mt-1 text-sm">{problems ? `${error.message.split(':')[0]}:` : error.message}</p>
      {error.code === 'UPSTREAM_UNAUTHORIZED' && (
        <p className="mt-1 text-sm">Ask a portal administrator to check the partner key. It is never shown here.</p>
      )}
      {problems ? (
        <ul className="mt-1 list-inside list-disc text-sm" data-testid="error-problems">
          {details.map(([key, problem]) => (
            <li key={key}>
              <span className="font-mono">{key}</span> {problem}
            </li>
          ))}
        </ul>
      ) : (
        details.length > 0 && (
          <div className="mt-3 text-sm">
            <p className="font-medium">Values sent:</p>
            <ul className="mt-1 list-inside list-disc">
              {details.map(([key, value]) => (
                <li key={key}>
                  <span className="font-mono">{key}</span> = <span className="font-mono break-all">{value}</span>
                </li>
              ))}
            </ul>
          </div>
        )
      )}
      <p className="mt-3 flex flex-wrap items-center gap-4 text-sm">
        {error.code === 'INVALID_FILTERS' ? (
          // Asked again, the same address fails the same way: say what to change instead of offering a retry.
          <>
            <span data-testid="error-next-step">Change what is named above and apply, or start from no filters:</span>
            <PortalLink href={retryHref} className={buttonClass('secondary')}>
              Clear the filters
            </PortalLink>
          </>
        ) : (
          <PortalLink href={retryHref} className={buttonClass('danger')}>
            {error.retryAfterSeconds ? `Retry (after ${error.retryAfterSeconds} s)` : 'Retry'}
          </PortalLink>
        )}
        <span className="text-red-800/80">
          Code <span className="font-mono">{error.code}</span>
          {error.requestId && (
            <>
              {' '}
              · request <span className="font-mono">{error.requestId}</span>
            </>
          )}
        </span>
      </p>
    </Notice>
  );
}
