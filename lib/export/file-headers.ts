/** What every downloaded file is answered with: its type, an attachment name, private and never transformed. */

export const contentTypeOf = (format: 'csv' | 'json') => (format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8');

export function fileHeaders(contentType: string, filename: string): Record<string, string> {
  return {
    'Content-Type': contentType,
    'Content-Disposition': `attachment; filename="${filename}"`,
    // no-transform: Next would otherwise gzip the stream on the fly, costing more CPU than the whole
    // export on a small machine; compress in the reverse proxy if the network needs it (README).
    'Cache-Control': 'private, no-store, no-transform',
    'X-Content-Type-Options': 'nosniff',
  };
}
