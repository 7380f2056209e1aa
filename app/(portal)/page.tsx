import { PortalLink } from '@/components/portal-link';
import { ErrorPanel } from '@/components/error-panel';
import { can } from '@/lib/vocabulary/roles';
import { isUtcDay, UtcTime } from '@/components/utc-time';
import { requirePage } from '@/lib/http/session';
import { getRecentHealth, getRecentLicence } from '@/lib/picks-api/portal';
import { ChangeCounts } from '@/components/changes/change-counts';
import { changeCounts } from '@/lib/changes/view';
import { deliveryAlerts, EMPTY_RUNS_ALERT } from '@/lib/deliveries/view';
import { PageHeader } from '@/components/ui/page-header';
import { OverviewTiles } from '@/components/overview/tiles';
import { StatusBadge } from '@/components/ui/badge';
import { unhealthySports } from '@/lib/feed-health';
import { tokensNearLimits } from '@/lib/http/token-pages';
import { cardClass } from '@/components/ui/card';
import { linkClass } from '@/components/ui/text-link';
import { Notice } from '@/components/ui/notice';

export default async function OverviewPage() {
  const session = await requirePage('browse', '/');
  const role = session.user.role;
  const checked = getRecentHealth();
  const [me, health, changes, deliveries, unhealthy, nearLimits] = await Promise.all([
    getRecentLicence(),
    checked.health,
    changeCounts(session.user.email),
    can(role, 'deliveries') ? deliveryAlerts() : null,
    unhealthySports(),
    can(role, 'tokens') ? tokensNearLimits(session.user) : [],
  ]);
  const licence = me.ok ? me.value.summary : null;

  return (
    <div className="space-y-6">
      <PageHeader title="Overview">
        Signed in as <span className="font-medium">{session.user.email}</span> ({role}).
      </PageHeader>
      {unhealthy && unhealthy.length > 0 ? (
        <Notice as="section" tone="warning" aria-labelledby="feed-alerts" role="alert" testId="feed-alerts">
          <h2 id="feed-alerts" className="font-semibold">
            The feed is not healthy for {unhealthy.length === 1 ? 'a sport' : `${unhealthy.length} sports`}
          </h2>
          <ul className="mt-1 space-y-0.5">
            {unhealthy.map((e) => (
              <li key={e.sport} data-sport={e.sport}>
                <StatusBadge value={e.state} /> <span className="font-medium">{e.sport}</span>: {e.reason}
                {e.side ? ` (${e.side}’s side)` : ''}, since <UtcTime iso={new Date(e.at).toISOString()} />.
              </li>
            ))}
          </ul>
          <PortalLink href="/health" className="mt-2 inline-block font-medium underline">
            Open feed health →
          </PortalLink>
        </Notice>
      ) : null}
      {nearLimits.length > 0 ? (
        <Notice as="section" tone="warning" aria-labelledby="token-limits" testId="token-limits">
          <h2 id="token-limits" className="font-semibold">
            {nearLimits.length === 1 ? 'An API token is' : `${nearLimits.length} API tokens are`} near a limit
          </h2>
          <ul className="mt-1 space-y-0.5">
            {nearLimits.map((t) => (
              <li key={t.id} data-token={t.id}>
                <PortalLink href={`/tokens/${t.id}`} className="font-medium underline">
                  {t.name}
                </PortalLink>
                : {t.why}.
              </li>
            ))}
          </ul>
        </Notice>
      ) : null}
      <OverviewTiles licence={licence} changes={changes} deliveries={can(role, 'deliveries') ? deliveries : undefined} />
      <div className="grid gap-4 md:grid-cols-3">
        <section aria-labelledby="licence-summary" className={cardClass('p-5 md:col-span-2')}>
          <h2 id="licence-summary" className="font-semibold">
            Licence
          </h2>
          {!me.ok ? (
            <div className="mt-3">
              <ErrorPanel error={me.error.toJSON()} retryHref="/" />
            </div>
          ) : (
            <dl className="mt-3 grid grid-cols-[auto_minmax(0,1fr)] gap-x-6 gap-y-2 text-sm sm:grid-cols-2 [&_time]:whitespace-normal">
              <dt className="text-slate-500">Partner</dt>
              <dd>{licence?.partner ?? 'not stated'}</dd>
              <dt className="text-slate-500">Status</dt>
              <dd>{licence?.status ?? 'not stated'}</dd>
              <dt className="text-slate-500">Sports</dt>
              <dd>{licence?.sports?.join(', ') || 'not stated'}</dd>
              <dt className="text-slate-500">Leagues</dt>
              <dd>{licence?.leagues ? `${licence.leagues.length} leagues` : 'not stated'}</dd>
              <dt className="text-slate-500">Content mode</dt>
              <dd>{licence?.contentMode ?? 'not stated'}</dd>
              <dt className="text-slate-500">Expires</dt>
              <dd>{licence?.expiresAt ? <UtcTime iso={licence.expiresAt} day={isUtcDay(licence.expiresAt)} /> : 'not stated'}</dd>
            </dl>
          )}
          <PortalLink href="/licence" className={linkClass('mt-4 inline-block text-sm font-medium')}>
            All licence details →
          </PortalLink>
        </section>
        <section aria-labelledby="gateway-health" className={cardClass('p-5')}>
          <h2 id="gateway-health" className="font-semibold">
            Gateway health
          </h2>
          {health.ok ? (
            <p className="mt-3 flex items-center gap-2 text-sm" data-testid="health-status">
              <span className="inline-block h-2.5 w-2.5 rounded-full bg-emerald-500" aria-hidden />
              {String(health.value.status ?? 'reachable')}
            </p>
          ) : (
            <div className="mt-3">
              <ErrorPanel error={health.error.toJSON()} retryHref="/" />
            </div>
          )}
          <p className="mt-2 text-xs text-slate-500" data-testid="health-checked">
            Asked <UtcTime iso={new Date(checked.checkedAt).toISOString()} />; shared for a few seconds by every page.
          </p>
        </section>
      </div>
      {deliveries && (deliveries.failing.length > 0 || deliveries.paused.length > 0 || deliveries.empty.length > 0) ? (
        <Notice as="section" tone="danger" aria-labelledby="delivery-alerts" role="alert" testId="delivery-alerts">
          <h2 id="delivery-alerts" className="font-semibold">
            Deliveries need attention
          </h2>
          {deliveries.failing.length > 0 ? <p className="mt-1">Failing: {deliveries.failing.join(', ')}.</p> : null}
          {deliveries.paused.length > 0 ? <p className="mt-1">Paused: {deliveries.paused.join(', ')}.</p> : null}
          {deliveries.empty.length > 0 ? (
            <p className="mt-1">
              Delivering nothing (the last {EMPTY_RUNS_ALERT} runs had 0 records): {deliveries.empty.join(', ')}.
            </p>
          ) : null}
          <PortalLink href="/deliveries" className="mt-2 inline-block font-medium underline">
            Open deliveries →
          </PortalLink>
        </Notice>
      ) : null}
      <ChangeCounts result={changes} />
    </div>
  );
}
