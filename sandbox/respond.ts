import type http from 'node:http';

/** How the sandbox answers: the spec's error body (§7), private non-cacheable JSON, and its logos. */

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export function invalidFilters(params: Set<string>): ApiError {
  return new ApiError(400, 'INVALID_FILTERS', `One or more filters are invalid (${[...params].join(', ')}).`);
}

export function headersFor(requestId: string, extra: Record<string, string> = {}) {
  return { 'Cache-Control': 'private, no-store', 'X-Request-Id': requestId, ...extra };
}

export function sendJson(res: http.ServerResponse, status: number, body: unknown, requestId: string, extra: Record<string, string> = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headersFor(requestId, extra),
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(res.req.method === 'HEAD' ? undefined : text);
}

export function sendSvg(res: http.ServerResponse, svg: string) {
  res.writeHead(200, {
    'Content-Type': 'image/svg+xml',
    'Cache-Control': 'public, max-age=86400',
    'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'",
    'Cross-Origin-Resource-Policy': 'cross-origin',
  });
  res.end(svg);
}
