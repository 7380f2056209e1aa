import { z } from 'zod';
import { alertWebhookChangeBody, alertWebhookCreateBody } from '../alerts/webhooks';
import { exchangeSchema, tokenRequestsSchema } from '../vocabulary/exchange';
import {
  alertsAnswerSchema,
  alertWebhooksSchema,
  alertWebhookViewSchema,
  resendAlertSchema,
  subscriptionAnswerSchema,
  subscriptionBody,
  subscriptionsSchema,
} from '../alerts/answers';
import { deliverySchema } from '../deliveries/input';
import {
  deliveriesAnswerSchema,
  deliveryViewSchema,
  previewSchema,
  probeAnswerSchema,
  runsAnswerSchema,
  runStartedSchema,
} from '../vocabulary/delivery-run';
import { pollAnswerSchema } from '../changes/answers';
import { jwkSetSchema } from '../proof/answers';
import { checkFormSchema, checkReportSchema } from '../proof/check-answer';
import { ceilingsSchema, tokenMadeSchema, tokensAnswerSchema, tokenViewSchema, usageAnswerSchema } from '../vocabulary/token-view';
import { cadenceBody, cadencesAnswer } from '../feed-health/answers';
import { feedHealthAnswerSchema } from '../feed-health/answers';
import { healthSchema, liveSchema, readySchema } from '../health/answers';
import { exportReconciliationSchema, recordHistorySchema, runReconciliationSchema } from '../history/answers';
import { ceilingsBody } from '../tokens/scope';
import type { Capability } from '../vocabulary/roles';
import { preferencesAnswerSchema, preferencesSchema } from '../vocabulary/preferences-schema';
import { recordsCountSchema, searchAnswerSchema, summaryAnswerSchema } from '../records/answers';
import { findAnswerSchema } from '../find/answers';
import { endpointChangeBody, endpointCreateBody } from '../webhooks/input';
import {
  attemptAnswerSchema,
  attemptsAnswerSchema,
  endpointSavedSchema,
  endpointsAnswerSchema,
  endpointViewSchema,
  resendAnswerSchema,
} from '../vocabulary/token-webhook';

/**
 * Every operation of the portal's own HTTP API (docs/api.md), with the capability its route handler asks
 * `withRole` for (tests/unit/openapi-portal.test.ts reads every route under app/api and fails on any difference),
 * and the request body schemas the handlers check with. lib/openapi/portal.ts makes the document from this.
 */

export type FileAnswer = 'export' | 'jws' | 'json' | 'jsonl' | 'coverage' | 'jwks';

export interface PortalOperation {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  /** What withRole asks for; null: no session (health, the public keys). */
  capability: Capability | null;
  summary: string;
  body?: z.ZodType;
  /** A multipart form instead of a JSON body (a file upload). */
  form?: z.ZodType;
  /** The success statuses (200 unless said). */
  ok?: (200 | 201 | 202 | 204)[];
  /** A file rather than JSON: an export (csv, json, jsonl, parquet), a JWS, or a JSON document to save. */
  file?: FileAnswer;
  /** The JSON its success answers, where the code builds it as a schema's type (else a loose object). */
  answer?: z.ZodType;
  /** Refusals of this operation alone, by status. */
  also?: Record<string, string>;
  /** What a 503 answers instead of the error body (the health probes say why in their own body). */
  unavailable?: z.ZodType;
  /** Answers what API v1 answers (the reference's Try): every status, in API v1's body. */
  relaysV1?: boolean;
  /** Query parameters, in words (each is checked by the one parser the pages use; a wrong one is a 400 naming it). */
  query?: string;
}

const op = (
  method: PortalOperation['method'],
  path: string,
  capability: Capability | null,
  summary: string,
  extra: Partial<PortalOperation> = {},
): PortalOperation => ({ method, path, capability, summary, ...extra });

const FILTERS = 'sport, league, status, result, from, to (a UTC day or an ISO 8601 timestamp), format';
const partialDelivery = deliverySchema.partial().extend({
  paused: z.boolean().optional(),
  repinHostKey: z.literal(true).optional(),
});

export const PORTAL_OPERATIONS: readonly PortalOperation[] = [
  op('get', '/api/health', null, 'The portal’s health: the store and the upstream (503 when the store does not answer)', {
    answer: healthSchema,
    unavailable: healthSchema,
  }),
  op('get', '/api/health/live', null, 'Liveness: the process answers', { answer: liveSchema }),
  op('get', '/api/health/ready', null, 'Readiness: the portal may take traffic', { answer: readySchema, unavailable: readySchema }),
  op('get', '/api/openapi.json', 'browse', 'This document'),
  op('get', '/api/proof/keys', null, 'The public keys manifests are signed with (a JWK Set)', { file: 'jwks', answer: jwkSetSchema }),
  op('post', '/api/proof/check', 'audit', 'Checks a delivered file against its manifest', {
    form: checkFormSchema,
    answer: checkReportSchema,
    also: { '429': 'Another file is being checked on this instance: `Retry-After` says when to try again.' },
  }),
  op('get', '/api/export/picks', 'export', 'The whole filtered set of picks as a file', { file: 'export', query: FILTERS }),
  op('get', '/api/export/results', 'export', 'The whole filtered set of results as a file', { file: 'export', query: FILTERS }),
  op('get', '/api/exports/{id}/manifest', 'export', 'An export’s signed manifest', { file: 'json' }),
  op('get', '/api/exports/{id}/manifest.jws', 'export', 'An export’s manifest as a JWS', { file: 'jws' }),
  op('get', '/api/exports/{id}/reconcile', 'export', 'An export’s records against what the portal knows now', {
    answer: exportReconciliationSchema,
  }),
  op('get', '/api/history', 'export', 'The set at a moment, or the difference between two', {
    file: 'export',
    query: 'asOf, or from and to (moments); sport, league, status, result; format',
  }),
  op('get', '/api/picks/{id}/history', 'browse', 'One record’s versions', { answer: recordHistorySchema }),
  op('get', '/api/records/count', 'browse', 'How many records the filters match', { query: FILTERS, answer: recordsCountSchema }),
  op('get', '/api/records/search', 'browse', 'Search, sort and page the whole set from the portal’s index', {
    query: `kind, q, sort, dir, page, ${FILTERS}`,
    answer: searchAnswerSchema,
  }),
  op('get', '/api/find', 'browse', 'What the signed-in person may open, found by name (the command palette)', {
    query: 'q',
    answer: findAnswerSchema,
    also: { '429': 'More searches than a person may make a minute: `Retry-After` says when to try again.' },
  }),
  op('get', '/api/records/summary', 'browse', 'Results and win rates of the filtered set', { query: FILTERS, answer: summaryAnswerSchema }),
  op('get', '/api/changes', 'export', 'The change feed as a file', { file: 'export', query: 'kind, sport, league, since, until, format' }),
  op('post', '/api/changes/poll', 'poll', 'Polls the upstream now', { ok: [202], answer: pollAnswerSchema }),
  op(
    'get',
    '/api/coverage',
    'coverage',
    'Licensed scope against delivered data: progress and the report as JSON lines, or the matrix as CSV',
    {
      file: 'coverage',
      query: 'sport, league, from, to, format',
    },
  ),
  op('get', '/api/feed-health', 'browse', 'Each sport’s feed health', { answer: feedHealthAnswerSchema }),
  op('get', '/api/feed-health/cadences', 'browse', 'Each sport’s expected cadence', { answer: cadencesAnswer }),
  op('put', '/api/feed-health/cadences', 'poll', 'Sets sports’ expected cadences', { body: cadenceBody, answer: cadencesAnswer }),
  op('get', '/api/preferences', 'browse', 'The signed-in person’s preferences', { answer: preferencesAnswerSchema }),
  op('put', '/api/preferences', 'browse', 'Changes the signed-in person’s preferences', {
    body: preferencesSchema,
    answer: preferencesAnswerSchema,
  }),
  op('get', '/api/audit', 'audit', 'The audit trail as a file', {
    file: 'export',
    query: 'actor, action, outcome, from, to, before, format',
  }),
  op('get', '/api/audit/checkpoints', 'audit', 'The audit trail’s signed checkpoints, one JSON line each', { file: 'jsonl' }),
  op('get', '/api/alerts', 'alerts', 'Alerts raised: the notification log and the latest daily digests', { answer: alertsAnswerSchema }),
  op('post', '/api/alerts/{id}/resend', 'alerts', 'Sends an alert again', { ok: [202], answer: resendAlertSchema }),
  op('get', '/api/alerts/subscription', 'browse', 'What alerts the signed-in person receives', { answer: subscriptionAnswerSchema }),
  op('put', '/api/alerts/subscription', 'browse', 'Changes what alerts the signed-in person receives', {
    body: subscriptionBody,
    answer: subscriptionAnswerSchema,
  }),
  op('get', '/api/alerts/subscriptions', 'alerts', 'Everyone’s alert subscriptions', { answer: subscriptionsSchema }),
  op('get', '/api/alerts/webhooks', 'alerts', 'Alert webhooks', { answer: alertWebhooksSchema }),
  op('post', '/api/alerts/webhooks', 'alerts', 'Adds an alert webhook', {
    body: alertWebhookCreateBody,
    ok: [201],
    answer: alertWebhookViewSchema,
  }),
  op('get', '/api/alerts/webhooks/{id}', 'alerts', 'One alert webhook', { answer: alertWebhookViewSchema }),
  op('patch', '/api/alerts/webhooks/{id}', 'alerts', 'Changes an alert webhook', {
    body: alertWebhookChangeBody,
    answer: alertWebhookViewSchema,
  }),
  op('delete', '/api/alerts/webhooks/{id}', 'alerts', 'Removes an alert webhook', { ok: [204] }),
  op('get', '/api/deliveries', 'deliveries', 'Every delivery', { answer: deliveriesAnswerSchema }),
  op('post', '/api/deliveries', 'deliveries', 'Creates a delivery', { body: deliverySchema, ok: [201], answer: deliveryViewSchema }),
  op('get', '/api/deliveries/preview', 'deliveries', 'How many records a delivery’s filters match now', {
    query: `kind, ${FILTERS}`,
    answer: previewSchema,
  }),
  op('get', '/api/deliveries/{id}', 'deliveries', 'One delivery', { answer: deliveryViewSchema }),
  op('patch', '/api/deliveries/{id}', 'deliveries', 'Changes a delivery; pauses or resumes it', {
    body: partialDelivery,
    answer: deliveryViewSchema,
  }),
  op('delete', '/api/deliveries/{id}', 'deliveries', 'Removes a delivery and its run history', { ok: [204] }),
  op('post', '/api/deliveries/{id}/run', 'deliveries', 'Runs a delivery now', {
    ok: [202],
    answer: runStartedSchema,
    also: { '507': 'Not enough free space in the spool for a run: how much is free and needed.' },
  }),
  op('post', '/api/deliveries/{id}/test', 'deliveries', 'Tries a destination (SFTP, webhook, S3, PostgreSQL) without delivering', {
    answer: probeAnswerSchema,
  }),
  op('get', '/api/deliveries/{id}/runs', 'deliveries', 'A delivery’s runs, newest first', { answer: runsAnswerSchema }),
  op('get', '/api/deliveries/{id}/runs/{runId}/reconcile', 'deliveries', 'A run’s records against what the portal knows now', {
    answer: runReconciliationSchema,
  }),
  op('get', '/api/deliveries/{id}/runs/{runId}/corrections', 'deliveries', 'A run’s records that changed since, as a file', {
    file: 'export',
    query: 'format',
  }),
  op('get', '/api/developers/try/{tokenId}', 'tokens', 'API v1 as one of the signed-in person’s own tokens (the reference’s Try)', {
    query: 'url (the API v1 path and query to ask, such as /api/v1/picks?limit=5); the header X-Portal-Try: 1 is required',
    relaysV1: true,
  }),
  op('get', '/api/tokens', 'tokens', 'API tokens (admins: every one; editors: their own)', { answer: tokensAnswerSchema }),
  op('post', '/api/tokens', 'tokens', 'Makes an API token: its secret is in this answer only', { ok: [201], answer: tokenMadeSchema }),
  op('get', '/api/tokens/ceilings', 'tokens', 'The most an editor may give their own tokens', { answer: ceilingsSchema }),
  op('put', '/api/tokens/ceilings', 'tokens', 'Sets the editors’ ceilings (admins)', { body: ceilingsBody, answer: ceilingsSchema }),
  op('get', '/api/tokens/{id}', 'tokens', 'One token', { answer: tokenViewSchema }),
  op('patch', '/api/tokens/{id}', 'tokens', 'Changes a token, or gives it to another owner (admins)', { answer: tokenViewSchema }),
  op('delete', '/api/tokens/{id}', 'tokens', 'Revokes a token', { ok: [204] }),
  op('get', '/api/tokens/{id}/usage', 'tokens', 'A token’s use, day by day', { answer: usageAnswerSchema }),
  op('get', '/api/tokens/{id}/webhooks', 'tokens', 'A token’s consumer webhooks', { answer: endpointsAnswerSchema }),
  op('post', '/api/tokens/{id}/webhooks', 'tokens', 'Adds a consumer webhook', {
    body: endpointCreateBody,
    ok: [201],
    answer: endpointSavedSchema,
  }),
  op('get', '/api/tokens/{id}/webhooks/{webhookId}', 'tokens', 'One consumer webhook', { answer: endpointViewSchema }),
  op('patch', '/api/tokens/{id}/webhooks/{webhookId}', 'tokens', 'Changes a consumer webhook', {
    body: endpointChangeBody,
    answer: endpointSavedSchema,
  }),
  op('delete', '/api/tokens/{id}/webhooks/{webhookId}', 'tokens', 'Removes a consumer webhook', { ok: [204] }),
  op('post', '/api/tokens/{id}/webhooks/{webhookId}/test', 'tokens', 'Sends a test event', { answer: attemptAnswerSchema }),
  op('post', '/api/tokens/{id}/webhooks/{webhookId}/resend', 'tokens', 'Sends an event again, or every event after one', {
    ok: [200, 202],
    answer: resendAnswerSchema,
  }),
  op('post', '/api/tokens/{id}/webhooks/{webhookId}/confirm', 'tokens', 'The token’s owner confirms a webhook someone else set up', {
    answer: endpointViewSchema,
  }),
  op('get', '/api/tokens/{id}/webhooks/{webhookId}/attempts', 'tokens', 'A consumer webhook’s attempts', {
    query: 'before',
    answer: attemptsAnswerSchema,
  }),
  op('get', '/api/tokens/{id}/webhooks/{webhookId}/attempts/{attemptId}', 'tokens', 'One attempt: the request sent and the answer', {
    answer: exchangeSchema,
  }),
  op('post', '/api/tokens/{id}/roll', 'tokens', 'A new secret; the old one works for an overlap (0–168 hours)', {
    ok: [201],
    body: z.strictObject({ overlapHours: z.int().min(0).max(168) }),
    answer: tokenMadeSchema,
  }),
  op('get', '/api/tokens/{id}/requests', 'tokens', 'A token’s requests, newest first (kept 7 days)', {
    query: 'status (429, 4xx…), path, before',
    answer: tokenRequestsSchema,
  }),
];
