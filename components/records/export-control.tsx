'use client';

import { useRef, useState } from 'react';
import { Button } from '@/components/ui/button';
import { Popover } from '@/components/ui/popover';
import { RECORD_FORMAT_LABELS, type RecordFormat } from '@/lib/vocabulary/formats';

type State =
  | { phase: 'idle' }
  | { phase: 'running'; format: string; records: number; bytes: number }
  | { phase: 'done'; records: number | null; bytes: number; filename: string }
  | { phase: 'failed'; message: string; records: number }
  | { phase: 'cancelled'; records: number };

/**
 * Exports the current filters (every page, not the one on screen) as CSV, JSON or JSON Lines. The body is read
 * as it streams so progress shows; records are counted by line ends outside quotes (CSV) or by lines (JSON and
 * JSON Lines, one record per line). Only the file's own bytes are held, then handed to the browser as a download.
 */
export function ExportControl({ endpoint, query }: { endpoint: string; query: string }) {
  const [state, setState] = useState<State>({ phase: 'idle' });
  const [bom, setBom] = useState(false);
  const controller = useRef<AbortController | null>(null);

  async function run(format: RecordFormat) {
    const abort = new AbortController();
    controller.current = abort;
    let records = 0;
    let bytes = 0;
    setState({ phase: 'running', format, records, bytes });
    try {
      const params = new URLSearchParams(query);
      params.set('format', format);
      if (bom && format === 'csv') params.set('bom', '1');
      const res = await fetch(`${endpoint}?${params}`, { signal: abort.signal, cache: 'no-store' });
      if (!res.ok || !res.body) {
        const body = await res.json().catch(() => null);
        throw new Error(body?.error?.message ?? `The export was refused (HTTP ${res.status}).`);
      }
      const filename = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? `export.${format}`;
      const chunks: Uint8Array[] = [];
      const reader = res.body.getReader();
      let inQuotes = false;
      let lines = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks.push(value);
        bytes += value.byteLength;
        for (let i = 0; i < value.length; i += 1) {
          const byte = value[i];
          if (format === 'csv' && byte === 0x22) inQuotes = !inQuotes;
          else if (byte === 0x0a && !inQuotes) lines += 1;
        }
        records = format === 'jsonl' ? lines : Math.max(0, lines - 1); // CSV: less the header; JSON: less the opening line; JSON Lines: a record a line

        setState({ phase: 'running', format, records, bytes });
      }
      if (format === 'json') records = Math.max(0, lines - 5); // opening 2 lines, closing 3
      const url = URL.createObjectURL(
        new Blob(chunks as BlobPart[], { type: res.headers.get('content-type') ?? 'application/octet-stream' }),
      );
      chunks.length = 0;
      const link = document.createElement('a');
      link.href = url;
      link.download = filename;
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
      // A Parquet file is binary: its records are not counted by lines here.
      setState({ phase: 'done', records: format === 'parquet' ? null : records, bytes, filename });
    } catch (error) {
      if (abort.signal.aborted) setState({ phase: 'cancelled', records });
      else
        setState({
          phase: 'failed',
          records,
          message:
            error instanceof Error && error.message !== 'terminated' && error.message !== 'network error'
              ? error.message
              : 'The download broke off before the end.',
        });
    } finally {
      controller.current = null;
    }
  }

  const running = state.phase === 'running';
  return (
    <section aria-label="Export" className="flex flex-wrap items-center gap-2 text-sm">
      <Popover label="Export" width="w-80" testId="export-menu">
        <p className="font-medium text-slate-800">Every record matching the filters, on every page</p>
        <div className="flex flex-wrap gap-2">
          <Button disabled={running} onClick={() => run('csv')}>
            CSV
          </Button>
          <Button disabled={running} onClick={() => run('json')}>
            JSON
          </Button>
          <Button disabled={running} onClick={() => run('jsonl')} title="One record a line, no envelope: for loaders that stream">
            JSON Lines
          </Button>
          <Button disabled={running} onClick={() => run('parquet')} title="Typed columns for data tools (DuckDB, pandas, Spark)">
            Parquet
          </Button>
        </div>
        <label className="flex items-center gap-1.5 text-slate-600" title="A byte-order mark helps some spreadsheet programs read UTF-8">
          <input type="checkbox" checked={bom} onChange={(e) => setBom(e.target.checked)} /> BOM for spreadsheets
        </label>
        <p className="text-xs text-slate-600" data-testid="export-fields">
          CSV has a column for each field the API documents (nested ones as dotted columns such as <code>eventMetadata.stage</code>); fields
          a record carries beyond those are kept only in JSON and JSON Lines.
        </p>
      </Popover>
      <span role="status" aria-live="polite" data-testid="export-status" data-phase={state.phase} className="order-first">
        {state.phase === 'running' && (
          <span className="inline-flex items-center gap-2">
            Exporting {RECORD_FORMAT_LABELS[state.format as RecordFormat]}…{' '}
            {state.format === 'parquet' ? (
              <>
                <strong data-testid="export-progress">{Math.ceil(state.bytes / 1024).toLocaleString()}</strong> KB so far
              </>
            ) : (
              <>
                <strong data-testid="export-progress">{state.records.toLocaleString()}</strong> records so far
              </>
            )}
            <Button tone="remove" size="sm" onClick={() => controller.current?.abort()}>
              Cancel
            </Button>
          </span>
        )}
        {state.phase === 'done' && (
          <span className="text-emerald-800">
            {state.records === null ? (
              <>
                Exported {Math.ceil(state.bytes / 1024).toLocaleString()} KB as {state.filename} (its record count is in My exports).
              </>
            ) : (
              <>
                Exported <strong data-testid="export-count">{state.records.toLocaleString()}</strong> records (
                {Math.ceil(state.bytes / 1024).toLocaleString()} KB) as {state.filename}.
              </>
            )}
          </span>
        )}
        {state.phase === 'failed' && (
          <span className="text-red-800">
            Export failed after {state.records.toLocaleString()} records: {state.message} No file was saved.
          </span>
        )}
        {state.phase === 'cancelled' && (
          <span className="text-slate-700">
            Export cancelled when {state.records.toLocaleString()} records had arrived. No file was saved (“My exports” counts what the
            portal had sent by then).
          </span>
        )}
      </span>
    </section>
  );
}
