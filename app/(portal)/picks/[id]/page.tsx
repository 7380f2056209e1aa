import type { Metadata } from 'next';
import { PortalLink } from '@/components/portal-link';
import { notFound } from 'next/navigation';
import { ErrorPanel } from '@/components/error-panel';
import { UtcTime } from '@/components/utc-time';
import { Logo } from '@/components/records/logo';
import { StatusBadge } from '@/components/ui/badge';
import { ValueTree } from '@/components/value-tree';
import { requirePage } from '@/lib/http/session';
import { settle } from '@/lib/errors';
import {
  competitionBesides,
  detectProbabilityScale,
  formatOdds,
  formatProbability,
  idFromSegment,
  marketLabel,
  pickHref,
  placeOf,
} from '@/lib/picks-api/pick-view';
import { getPickDetail } from '@/lib/picks-api/portal';
import { RecordHistory } from '@/components/history/record-history';
import { recordHistory } from '@/lib/history/record';
import { cardClass } from '@/components/ui/card';
import { linkClass } from '@/components/ui/text-link';
import { Notice } from '@/components/ui/notice';
import { PageTitle } from '@/components/ui/page-header';

export const metadata: Metadata = { title: 'Pick' };

function Row({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="contents">
      <dt className="text-sm text-slate-500">{label}</dt>
      <dd className="text-sm">{children ?? <span className="text-slate-500">not included</span>}</dd>
    </div>
  );
}

export default async function PickPage({ params }: { params: Promise<{ id: string }> }) {
  const id = idFromSegment((await params).id);
  if (id === null) notFound();
  await requirePage('browse', pickHref(id));
  const [result, history] = await Promise.all([settle(getPickDetail(id)), settle(recordHistory(id))]);
  const historySection = history.ok ? (
    <RecordHistory versions={history.value.versions} recordedSince={history.value.recordedSince} />
  ) : (
    <ErrorPanel error={history.error.toJSON()} retryHref={pickHref(id)} />
  );
  // A record the API no longer serves (withdrawn, or outside the licence now) still has the history the portal kept.
  if (!result.ok && result.error.code === 'NOT_FOUND' && !(history.ok && history.value.versions.length > 0)) notFound();
  if (!result.ok) {
    return (
      <div className="space-y-4">
        <PageTitle>Pick</PageTitle>
        {result.error.code === 'NOT_FOUND' ? (
          <Notice tone="warning" testId="not-served">
            The Picks API no longer serves this record (<span className="font-mono text-xs">{id}</span>): it was withdrawn, or the licence
            no longer covers it. What the portal saw of it is below.
          </Notice>
        ) : (
          <ErrorPanel error={result.error.toJSON()} retryHref={pickHref(id)} />
        )}
        {historySection}
      </div>
    );
  }
  const { pick, row } = result.value;
  const scale = detectProbabilityScale([row.probability]);

  return (
    <article className="space-y-6">
      <PortalLink href="/picks" className={linkClass('text-sm font-medium')}>
        ← All picks
      </PortalLink>
      <header className={cardClass('p-6')}>
        <div className="flex items-center gap-2 text-sm text-slate-600">
          <Logo src={row.competitionLogo} name={row.league ?? row.competition} size={28} shape="square" />
          <span data-testid="place">{placeOf(row) || 'Competition not included'}</span>
          {competitionBesides(row) && <span>({competitionBesides(row)})</span>}
        </div>
        <PageTitle className="mt-3 flex flex-wrap items-center gap-3">
          <span className="inline-flex items-center gap-2">
            <Logo src={row.homeLogo} name={row.homeTeam} size={40} />
            {row.homeTeam ?? '—'}
          </span>
          <span className="text-slate-500">vs</span>
          <span className="inline-flex items-center gap-2">
            <Logo src={row.awayLogo} name={row.awayTeam} size={40} />
            {row.awayTeam ?? '—'}
          </span>
        </PageTitle>
        <p className="mt-2 text-sm text-slate-600">
          <UtcTime iso={row.eventDate} /> · {row.eventDescription ?? ''}
        </p>
        <p className="mt-3 text-sm text-slate-600" data-attribution="">
          {row.attribution ?? 'No attribution supplied'}
        </p>
      </header>

      <div className="grid gap-6 lg:grid-cols-3">
        <section aria-labelledby="the-pick" className={cardClass('p-5 lg:col-span-2')}>
          <h2 id="the-pick" className="font-semibold">
            The pick
          </h2>
          <dl className="mt-3 grid grid-cols-[max-content_1fr] gap-x-6 gap-y-2">
            <Row label="Market">
              {row.marketType && <span title={row.marketType}>{marketLabel(row.marketType)}</span>}
              {row.isPlayerPick ? ' (player pick)' : ''}
            </Row>
            <Row label="Selection">{row.selection}</Row>
            <Row label="Line">{row.line}</Row>
            <Row label="Odds">
              {row.odds === null ? null : `${formatOdds(row.odds, row.oddsFormat)} (${row.oddsFormat ?? 'format not stated'})`}
            </Row>
            <Row label="Bookmaker">{row.bookmaker}</Row>
            <Row label="Probability">{row.probability === null ? null : formatProbability(row.probability, scale)}</Row>
            <Row label="Confidence tier">{row.confidenceTier}</Row>
          </dl>
          <h3 className="mt-5 text-sm font-semibold">Reasoning</h3>
          {pick.reasoning ? (
            <p className="mt-1 whitespace-pre-wrap text-sm leading-6" data-testid="reasoning">
              {pick.reasoning}
            </p>
          ) : (
            <p className="mt-1 text-sm text-slate-500">Not included in this licence or record.</p>
          )}
        </section>
        <section aria-labelledby="lifecycle" className={cardClass('p-5')}>
          <h2 id="lifecycle" className="font-semibold">
            Lifecycle
          </h2>
          <dl className="mt-3 grid grid-cols-[max-content_1fr] gap-x-6 gap-y-2">
            <Row label="Status">
              <StatusBadge value={row.status} />
            </Row>
            <Row label="Result">
              <StatusBadge value={row.result} />
            </Row>
            <Row label="Settled">
              {pick.settledAt ? <UtcTime iso={pick.settledAt} /> : <span className="text-slate-500">not settled</span>}
            </Row>
            <Row label="Published">
              <UtcTime iso={row.publishedAt} />
            </Row>
          </dl>
          <h2 className="mt-5 font-semibold">Identity</h2>
          <dl className="mt-3 grid grid-cols-[max-content_1fr] gap-x-6 gap-y-2 break-all">
            <Row label="Record id">
              <span className="font-mono text-xs">{pick.id}</span>
            </Row>
            <Row label="Home key">{pick.homeIdentityKey && <span className="font-mono text-xs">{pick.homeIdentityKey}</span>}</Row>
            <Row label="Away key">{pick.awayIdentityKey && <span className="font-mono text-xs">{pick.awayIdentityKey}</span>}</Row>
            <Row label="Subject key">{pick.subjectIdentityKey && <span className="font-mono text-xs">{pick.subjectIdentityKey}</span>}</Row>
            <Row label="Source event">
              {pick.widgetEventIdentity?.sourceEventId && (
                <span className="font-mono text-xs">{pick.widgetEventIdentity.sourceEventId}</span>
              )}
            </Row>
          </dl>
        </section>
      </div>
      {historySection}
      <section aria-labelledby="all-fields" className={cardClass('p-5')}>
        <h2 id="all-fields" className="mb-3 font-semibold">
          Every field of the record
        </h2>
        <ValueTree value={pick} />
      </section>
    </article>
  );
}
