import { expect } from 'vitest';
import { AppError } from '@/lib/errors';
import { createPicksClient, type PicksClientOptions } from '@/lib/picks-api/client';
import { scriptedFetch, type Step } from './stub-fetch';

/** A Picks API client on a scripted fetch, and helpers shared by the client's unit tests. */

export const BASE = 'https://api.example.test';

export function client(steps: Step[], options: Partial<PicksClientOptions> = {}) {
  const stub = scriptedFetch(steps);
  const api = createPicksClient({
    baseUrl: BASE,
    apiKey: 'test-key',
    fetch: stub.fetch,
    random: () => 0, // full jitter drawn at its floor: no waiting in tests
    retry: { baseDelayMs: 1, maxDelayMs: 2 },
    ...options,
  });
  return { api, ...stub };
}

export async function failure(work: Promise<unknown>): Promise<AppError> {
  const error = await work.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

export const errorBody = (code: string, requestId = 'req_abc') => ({ error: { code, message: 'nope', requestId } });
