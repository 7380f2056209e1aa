import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { requirePage } from '@/lib/http/session';
import { licenceChoices, tokenForPage } from '@/lib/http/token-pages';
import { ErrorPanel } from '@/components/error-panel';
import { PortalLink } from '@/components/portal-link';
import { StatusBadge } from '@/components/ui/badge';
import { RevokeButton, TokenForm } from '@/components/tokens/token-form';
import { OwnerForm } from '@/components/tokens/owner-form';
import { UsagePanel } from '@/components/tokens/usage-panel';
import { WebhooksPanel } from '@/components/tokens/webhooks-panel';
import { RequestLog } from '@/components/tokens/request-log';
import { requestLogFor, secretsLastUsed } from '@/lib/http/token-logs';
import { RollForm } from '@/components/tokens/roll-form';
import { SecretsInUse } from '@/components/tokens/secrets-in-use';
import type { PageSearchParams } from '@/lib/picks-api/filters';
import { webhooksForPage } from '@/lib/webhooks/view';
import { PageHeader } from '@/components/ui/page-header';
import { UtcTime } from '@/components/utc-time';
import { cardClass } from '@/components/ui/card';
import { linkClass } from '@/components/ui/text-link';
import { labelClass } from '@/components/ui/field';

export const metadata: Metadata = { title: 'API token' };

export default async function TokenPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<PageSearchParams>;
}) {
  const { id } = await params;
  const asked = await searchParams;
  const session = await requirePage('tokens', `/tokens/${encodeURIComponent(id)}`);
  const [found, licence, hooks] = await Promise.all([tokenForPage(session.user, id), licenceChoices(), webhooksForPage(session.user, id)]);
  if (!found.ok) return <ErrorPanel error={found.error} retryHref={`/tokens/${encodeURIComponent(id)}`} />;
  if (!found.value) notFound();
  const { token, days } = found.value;
  const [requests, secrets] = await Promise.all([requestLogFor(session.user, token.id, asked), secretsLastUsed(token)]);
  return (
    <div className="space-y-4">
      <p className="text-sm">
        <PortalLink href="/tokens" className={linkClass()}>
          ← API tokens
        </PortalLink>
      </p>
      <PageHeader title={token.name}>
        <code className="font-mono">{token.prefix}…</code> · made by {token.createdBy} <UtcTime iso={token.createdAt} /> ·{' '}
        <StatusBadge value={token.suspended ?? token.state} />
      </PageHeader>
      <dl className={cardClass('grid gap-x-6 gap-y-2 p-4 text-sm md:grid-cols-2')} data-testid="token-facts">
        <div>
          <dt className={labelClass()}>May read</dt>
          <dd>{token.scopeText}</dd>
        </div>
        <div>
          <dt className={labelClass()}>Limits</dt>
          <dd>
            {token.ratePerMinute} requests a minute, {token.dailyRecords.toLocaleString('en')} records a day (UTC)
          </dd>
        </div>
        <div>
          <dt className={labelClass()}>Expires</dt>
          <dd>
            <UtcTime iso={token.expiresAt} />
          </dd>
        </div>
        <div>
          <dt className={labelClass()}>Secrets</dt>
          <dd data-testid="token-secrets">
            <SecretsInUse token={token} lastUse={secrets} />
          </dd>
        </div>
        <div>
          <dt className={labelClass()}>Last used</dt>
          <dd>
            {token.lastUsedAt ? <UtcTime iso={token.lastUsedAt} /> : 'never'}
            {token.lastAddress ? ` from ${token.lastAddress}` : ''}
          </dd>
        </div>
        <div>
          <dt className={labelClass()}>Owner</dt>
          <dd data-testid="token-owner">
            {token.owner}
            {token.suspended ? ` — suspended: ${token.suspended}` : ''}
          </dd>
        </div>
        {token.revokedAt && (
          <div>
            <dt className={labelClass()}>Revoked</dt>
            <dd>
              <UtcTime iso={token.revokedAt} /> by {token.revokedBy}
            </dd>
          </div>
        )}
      </dl>
      <section aria-labelledby="usage" className={cardClass('space-y-2 p-4')}>
        <h2 id="usage" className="font-semibold">
          Use, last 30 days
        </h2>
        <UsagePanel days={days} dailyRecords={token.dailyRecords} />
      </section>
      <RequestLog tokenId={token.id} {...requests} />
      {token.state !== 'revoked' &&
        (hooks.ok ? (
          hooks.value && (
            <WebhooksPanel
              tokenId={token.id}
              endpoints={hooks.value.endpoints}
              paused={hooks.value.paused}
              readsChanges={token.scope.content.includes('changes')}
            />
          )
        ) : (
          <ErrorPanel error={hooks.error} retryHref={`/tokens/${encodeURIComponent(id)}`} />
        ))}
      {token.state !== 'revoked' && (
        <>
          <RollForm id={token.id} name={token.name} />
          <TokenForm licence={licence} token={token} />
          {session.user.role === 'admin' && <OwnerForm id={token.id} owner={token.owner} />}
          <RevokeButton id={token.id} name={token.name} />
        </>
      )}
    </div>
  );
}
