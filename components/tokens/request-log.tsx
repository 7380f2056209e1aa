import type { AppErrorJson } from '@/lib/errors';
import type { RequestsPage } from '@/lib/http/token-logs';
import type { TokenRequest } from '@/lib/store/token-logs';
import { PortalLink } from '@/components/portal-link';
import { Badge } from '@/components/ui/badge';
import { DataTable, type Column } from '@/components/ui/data-table';
import { EmptyState } from '@/components/ui/card';
import { SelectField, TextField } from '@/components/ui/field';
import { FilterBar } from '@/components/ui/filter-bar';
import { linkClass } from '@/components/ui/text-link';
import { UtcTime } from '@/components/utc-time';

/**
 * A token's requests on its page, newest first: when, what was asked (method, path and query; MCP for a tool call of
 * the MCP server), the status, the records answered, the time taken and the request id a support question quotes.
 * Filtered by status and path in the page's own address; older ones a page at a time.
 */

const STATUSES = [
  { value: '2xx', label: 'Answered (2xx)' },
  { value: '4xx', label: 'Refused (4xx)' },
  { value: '401', label: '401 unauthorized' },
  { value: '403', label: '403 outside the scope' },
  { value: '429', label: '429 rate or quota' },
  { value: '5xx', label: 'Failed (5xx)' },
];

const tone = (status: number) => (status < 300 ? 'success' : status === 429 || status < 500 ? 'warning' : 'danger');

const columns: Column<TokenRequest>[] = [
  { id: 'at', header: 'When', nowrap: true, cell: (r) => <UtcTime iso={new Date(r.atMs).toISOString()} /> },
  { id: 'method', header: 'Method', cell: (r) => r.method },
  { id: 'path', header: 'Path', cell: (r) => <code className="font-mono">{r.path}</code>, truncate: (r) => r.path },
  { id: 'status', header: 'Status', cell: (r) => <Badge tone={tone(r.status)}>{r.status}</Badge> },
  { id: 'records', header: 'Records', align: 'right', cell: (r) => r.records.toLocaleString('en') },
  { id: 'duration', header: 'Took', align: 'right', nowrap: true, cell: (r) => `${r.durationMs.toLocaleString('en')} ms` },
  { id: 'secret', header: 'Secret', nowrap: true, cell: (r) => (r.prefix ? <code className="font-mono">{r.prefix}…</code> : '—') },
  { id: 'request', header: 'Request id', nowrap: true, cell: (r) => <code className="font-mono text-xs">{r.requestId}</code> },
];

export function RequestLog({
  tokenId,
  filters,
  page,
  error,
}: {
  tokenId: string;
  filters: { status: string; path: string };
  page: RequestsPage | null;
  error: AppErrorJson | null;
}) {
  const here = `/tokens/${encodeURIComponent(tokenId)}`;
  const older =
    page?.nextBefore &&
    `${here}?${new URLSearchParams({ ...(filters.status ? { status: filters.status } : {}), ...(filters.path ? { path: filters.path } : {}), before: page.nextBefore })}#requests`;
  return (
    <section aria-labelledby="requests" className="space-y-2" id="requests-log">
      <h2 id="requests" className="font-semibold">
        Requests{page ? `, kept ${page.keptDays} days (at most the newest ${page.keptMost.toLocaleString('en-GB')})` : ''}
      </h2>
      <FilterBar action={`${here}#requests`} label="Filter the token’s requests" grid="sm:grid-cols-3">
        <SelectField
          label="Status"
          name="status"
          options={STATUSES}
          any="Any status"
          defaultValue={filters.status}
          error={error?.details?.status}
        />
        <TextField label="Path contains" name="path" defaultValue={filters.path} placeholder="/api/v1/picks" error={error?.details?.path} />
      </FilterBar>
      {!page && error && !error.details && (
        <p role="alert" className="text-sm text-red-700">
          {error.message}
        </p>
      )}
      {page && page.data.length > 0 ? (
        <DataTable
          testId="token-requests"
          label="The token’s requests"
          columns={columns}
          rows={page.data}
          rowKey={(r) => `${r.atMs}-${r.requestId}-${r.path}`}
          rowData={(r) => ({ 'data-status': r.status })}
        />
      ) : page ? (
        <EmptyState testId="token-requests-none">
          No requests {filters.status || filters.path ? 'match these filters' : 'yet'} in the last {page.keptDays} days.
        </EmptyState>
      ) : null}
      {older && (
        <p className="text-sm">
          <PortalLink href={older} className={linkClass('underline')}>
            Older requests
          </PortalLink>
        </p>
      )}
    </section>
  );
}
