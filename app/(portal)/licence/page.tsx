import type { Metadata } from 'next';
import { ErrorPanel } from '@/components/error-panel';
import { isUtcDay, UtcTime } from '@/components/utc-time';
import { ValueTree } from '@/components/value-tree';
import { requirePage } from '@/lib/http/session';
import { getLicence } from '@/lib/picks-api/portal';
import { PageHeader, PageTitle } from '@/components/ui/page-header';
import { cardClass } from '@/components/ui/card';
import { Badge } from '@/components/ui/badge';
import { labelClass } from '@/components/ui/field';

export const metadata: Metadata = { title: 'Licence' };

const isInstant = (value: string | null) => value !== null && /^\d{4}-\d{2}-\d{2}T/.test(value);

function Fact({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className={cardClass('p-4')}>
      <dt className={labelClass()}>{label}</dt>
      <dd className="mt-1 text-sm">{children}</dd>
    </div>
  );
}

function Chips({ items }: { items: string[] | null }) {
  if (!items) return <span className="text-slate-500">not stated</span>;
  if (items.length === 0) return <span className="text-slate-500">none</span>;
  return (
    <ul className="flex flex-wrap gap-1.5">
      {items.map((item) => (
        <li key={item}>
          <Badge>{item}</Badge>
        </li>
      ))}
    </ul>
  );
}

const When = ({ value }: { value: string | null }) =>
  value === null ? (
    <span className="text-slate-500">not stated</span>
  ) : isInstant(value) ? (
    <UtcTime iso={value} day={isUtcDay(value)} />
  ) : (
    <>{value}</>
  );

export default async function LicencePage() {
  await requirePage('browse', '/licence');
  const licence = await getLicence();
  if (!licence.ok) {
    return (
      <div className="space-y-4">
        <PageTitle>Licence</PageTitle>
        <ErrorPanel error={licence.error.toJSON()} retryHref="/licence" />
      </div>
    );
  }
  const { summary, document } = licence.value;
  return (
    <div className="space-y-6">
      <PageHeader title="Licence">
        What the partner key is licensed for, as the Picks API reports it (<span className="font-mono">GET /me</span>).
      </PageHeader>
      <dl className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4">
        <Fact label="Partner">{summary.partner ?? <span className="text-slate-500">not stated</span>}</Fact>
        <Fact label="Status">{summary.status ?? <span className="text-slate-500">not stated</span>}</Fact>
        <Fact label="Content mode">{summary.contentMode ?? <span className="text-slate-500">not stated</span>}</Fact>
        <Fact label="Expires">
          <When value={summary.expiresAt} />
        </Fact>
        <Fact label="Date window">
          {summary.from && summary.to ? (
            <>
              <When value={summary.from} /> – <When value={summary.to} />
            </>
          ) : summary.from ? (
            <>
              from <When value={summary.from} />{' '}
              <span className="text-slate-500">(no end stated; the licence itself expires as above)</span>
            </>
          ) : summary.to ? (
            <>
              until <When value={summary.to} />
            </>
          ) : (
            <span className="text-slate-500">not stated (unrestricted or not reported)</span>
          )}
        </Fact>
        <Fact label="Channels">
          <Chips items={summary.channels} />
        </Fact>
        <Fact label="Sports">
          <Chips items={summary.sports} />
        </Fact>
        <Fact label="Leagues">
          <Chips items={summary.leagues} />
        </Fact>
      </dl>
      <section aria-labelledby="everything" className={cardClass('p-5')}>
        <h2 id="everything" className="mb-3 font-semibold">
          Everything /me returned
        </h2>
        <ValueTree value={document} />
      </section>
    </div>
  );
}
