import type { Metadata } from 'next';
import { CheckFileForm } from '@/components/admin/check-file-form';
import { DataTable, type Column } from '@/components/ui/data-table';
import { ErrorPanel } from '@/components/error-panel';
import { PageHeader } from '@/components/ui/page-header';
import { UtcTime } from '@/components/utc-time';
import { requirePage } from '@/lib/http/session';
import { getConfig } from '@/lib/config';
import { proofsView, type ProofsView } from '@/lib/proof/view';
import { linkClass } from '@/components/ui/text-link';

export const metadata: Metadata = { title: 'Proofs' };

const KEY_COLUMNS: Column<ProofsView['keys'][number]>[] = [
  { id: 'kid', header: 'Key (kid)', rowHeader: true, className: 'font-mono text-xs', cell: (k) => k.kid },
  { id: 'created', header: 'Signing since', nowrap: true, cell: (k) => <UtcTime iso={k.createdAt} /> },
  {
    id: 'state',
    header: 'State',
    cell: (k) =>
      k.retiredAt ? (
        <>
          retired <UtcTime iso={k.retiredAt} />
        </>
      ) : (
        'signing now'
      ),
  },
];

const CHECKPOINT_COLUMNS: Column<ProofsView['checkpoints'][number]>[] = [
  { id: 'id', header: 'Checkpoint', align: 'right', cell: (c) => c.id },
  { id: 'kind', header: 'Kind', cell: (c) => (c.kind === 'anchor' ? 'pruned up to' : 'sealed up to') },
  { id: 'head', header: 'Entry', align: 'right', cell: (c) => c.headSeq },
  { id: 'at', header: 'Made', nowrap: true, cell: (c) => <UtcTime iso={c.at} /> },
  { id: 'hash', header: 'Hash', className: 'font-mono text-xs', title: (c) => c.hash, cell: (c) => `${c.hash.slice(0, 16)}…` },
];

export default async function ProofsPage() {
  await requirePage('audit', '/admin/proofs');
  const shown = await proofsView();
  return (
    <div className="space-y-6">
      <PageHeader title="Proofs">
        Proof that a delivered file and the audit trail are as the portal made them. Each file goes out with a manifest (what it holds)
        signed with the portal&apos;s key, and the audit trail is signed at checkpoints, so a change made later shows. Give recipients the{' '}
        <a className={linkClass('underline')} href="/api/proof/keys">
          key set
        </a>{' '}
        through a channel of your own, and the{' '}
        <a className={linkClass('underline')} href="/verify-picks-file.mjs">
          verifier
        </a>{' '}
        with{' '}
        <a className={linkClass('underline')} href="/picks-file-readers.mjs">
          its readers
        </a>{' '}
        (saved in one folder, Node alone runs them).
      </PageHeader>
      {!shown.ok ? (
        <ErrorPanel error={shown.error} retryHref="/admin/proofs" />
      ) : (
        <>
          <section className="space-y-2" aria-labelledby="keys-heading">
            <h2 id="keys-heading" className="text-base font-semibold text-slate-900">
              Signing keys
            </h2>
            <p className="text-sm text-slate-600">
              The key <strong>signing now</strong> signs every new manifest and checkpoint. A <strong>retired</strong> key signs nothing
              more but stays listed, so files signed with it still check.
            </p>
            <DataTable
              testId="keys-table"
              columns={KEY_COLUMNS}
              rows={shown.view.keys}
              rowKey={(k) => k.kid}
              rowData={(k) => ({ 'data-kid': k.kid })}
              cards
            />
          </section>
          <section className="space-y-2" aria-labelledby="checkpoints-heading">
            <h2 id="checkpoints-heading" className="text-base font-semibold text-slate-900">
              Audit checkpoints
            </h2>
            <p className="text-sm text-slate-600" data-testid="sealed-summary">
              {shown.view.sealed >= shown.view.head
                ? `The trail is sealed up to its newest entry (${shown.view.head}).`
                : `Sealed up to entry ${shown.view.sealed}; entries ${shown.view.sealed + 1}–${shown.view.head} are not sealed yet.`}{' '}
              Keep a copy of{' '}
              <a className={linkClass('underline')} href="/api/audit/checkpoints">
                every checkpoint
              </a>{' '}
              where the database’s writers cannot reach, and check with <code>npm run audit -- verify --keys … --checkpoints …</code>.
            </p>
            <p className="text-sm text-slate-600">
              <strong>Sealed up to</strong> an entry: the trail up to it is signed, and a change to any entry before it shows.{' '}
              <strong>Pruned up to</strong>: entries before it were removed when their retention ended; the checkpoint keeps the rest
              checkable.
            </p>
            <DataTable testId="checkpoints-table" columns={CHECKPOINT_COLUMNS} rows={shown.view.checkpoints} rowKey={(c) => c.id} cards />
          </section>
        </>
      )}
      <section className="space-y-2" aria-labelledby="check-heading">
        <h2 id="check-heading" className="text-base font-semibold text-slate-900">
          Check a file
        </h2>
        <CheckFileForm maxMb={getConfig().PROOF_CHECK_MAX_MB} />
      </section>
    </div>
  );
}
