import 'server-only';
import { toAppError } from '../errors';
import type { Delivery } from '../store/deliveries';
import { folderProblem } from './destinations';
import { filterProblems, type Vocabulary } from './filter-rules';
import { invalidDelivery, parseDeliveryFields, runFilters, type DeliveryInput } from './input';
import { intervalProblem } from './limits';
import { readRecipient } from './encryption';
import { describeBinding, SECRET_KEY_UNSET, sealSecret, secretBinding } from './secrets';
import { targetProblem, webhookUrlProblem } from './targets';
import { s3Host } from './s3';
import { readConnection } from './pg-connection';
import type { PrivateTargets } from './targets';

/**
 * A whole delivery checked before anything is stored (POST, and PATCH merged over the stored one): the
 * schema, the filters through the one parser, the target's address, the schedule's interval, and the
 * secret. A secret stays with the exact destination it was entered for (SFTP host, port and username; the
 * webhook's URL): moving a delivery without entering the secret again is refused, naming the field, so an
 * editor cannot send an admin's password or signing key to a server of their own.
 */

export interface CheckContext {
  allowPrivate: PrivateTargets;
  secretKey: string | null;
  minIntervalMinutes: number;
  /** What filters may say (the licence, the feed); without it only their form is checked. */
  vocabulary?: Vocabulary;
}

export interface Checked {
  value: DeliveryInput;
  destination: Delivery['destination'];
  /** Sealed, bound to `destination`; null for a folder. */
  secret: string | null;
  /** A host key fingerprint given with an SFTP destination: pinned as given. */
  hostKey: string | null;
  /** The recipient key read and checked; null: remove it; undefined: not given (unchanged). */
  encryptTo: Delivery['encryptTo'] | undefined;
}

const MOVED: Record<string, string> = {
  sftp: 'server, port or user',
  s3: 'endpoint, bucket or access key',
  postgres: 'server, port, database or user',
};

const SECRET_NEEDED: Record<string, string> = {
  sftp: 'or a privateKey is required',
  s3: 'is required',
  postgres: 'must hold the password (postgres://user:password@host:5432/database)',
  webhook: 'is required (at least 16 characters)',
};

/** A table keeps one fixed set in step (./table-run.ts): picks, whose rows carry their results as they settle. */
function tableRules(value: Partial<DeliveryInput>, existing: Delivery | null): Record<string, string> {
  const problems: Record<string, string> = {};
  if ((value.kind ?? existing?.kind) !== 'picks')
    problems.kind = 'must be picks for a table: its rows carry their results as they settle, and each run writes what changed';
  if ((value.format ?? existing?.format) !== 'jsonl')
    problems.format = 'must be jsonl for a table: the rows are written, and the manifest names the JSON Lines of the records loaded';
  if (value.corrections ?? existing?.corrections) problems.corrections = 'are not for a table: each run already writes what changed';
  if (value.encryptTo ?? existing?.encryptTo) problems.encryptTo = 'is for files: a table is written over the connection (use sslmode)';
  for (const key of ['from', 'to'] as const) {
    const date = (value.filters ?? existing?.filters ?? {})[key];
    if (date && /^(today|now)/.test(date.trim()))
      problems[`filters.${key}`] = 'must be a fixed date for a table (a moving window would drop and add rows that did not change)';
  }
  return problems;
}

export async function checkDelivery(input: unknown, existing: Delivery | null, context: CheckContext): Promise<Checked> {
  const { value: fields, problems, destination: passed } = parseDeliveryFields(input);
  if (fields.kind && fields.filters) {
    const open: Vocabulary = { sports: null, leagues: null, leaguesBySport: {} };
    const found = filterProblems(fields.kind, fields.filters, context.vocabulary ?? open, Date.now());
    Object.assign(problems, found);
    if (Object.keys(found).length === 0) {
      try {
        runFilters(fields.kind, fields.filters, Date.now());
      } catch (error) {
        const failure = toAppError(error);
        for (const [key, problem] of Object.entries(failure.details ?? { filters: failure.message }))
          problems[`filters.${key}`] = String(problem);
      }
    }
  }
  if (fields.schedule !== undefined && (!existing || existing.schedule !== fields.schedule)) {
    const problem = intervalProblem(fields.schedule, context.minIntervalMinutes);
    if (problem) problems.schedule = problem;
  }
  let encryptTo: Delivery['encryptTo'] | undefined;
  if (typeof fields.encryptTo === 'string' && fields.encryptTo !== '') {
    try {
      const recipient = await readRecipient(fields.encryptTo);
      encryptTo = { armoured: recipient.armoured, fingerprint: recipient.fingerprint };
    } catch (error) {
      problems.encryptTo = (error as Error).message;
    }
  } else if (fields.encryptTo === null || fields.encryptTo === '') encryptTo = null;
  const kind = fields.kind ?? existing?.kind;
  if (fields.corrections === true && kind === 'changes')
    problems.corrections = 'are sent only by picks and results deliveries (a changes delivery already sends only what changed)';
  if ((fields.format ?? existing?.format) === 'parquet') {
    if (kind === 'changes') problems.format = 'parquet is for picks and results deliveries: a changes delivery is csv, json or jsonl';
    else if (fields.corrections ?? existing?.corrections)
      problems.corrections = 'are files of csv, json or jsonl: a parquet delivery sends its whole set each run instead';
  }
  // A destination that did not pass whole is still checked as far as its fields allow: every problem in one answer.
  const whole = fields.destination;
  const d = (whole ?? passed) as DeliveryInput['destination'] | undefined;
  if (!d) throw invalidDelivery(problems);
  const value = fields as DeliveryInput;
  let plain: string | null = null;
  let destination: Delivery['destination'];
  let hostKey: string | null = null;
  let secretField = 'destination.secret';
  if (d.type === 'directory') {
    const problem = folderProblem(d.folder ?? '');
    if (problem) problems['destination.folder'] = problem;
    destination = { type: 'directory', folder: d.folder };
  } else if (d.type === 'sftp') {
    secretField = 'destination.password';
    const problem = d.host ? await targetProblem(d.host, context.allowPrivate) : null;
    if (problem) problems['destination.host'] = problem;
    if (d.password && d.privateKey) problems['destination.password'] = 'give a password or a privateKey, not both';
    if (d.password || d.privateKey) plain = JSON.stringify(d.password ? { password: d.password } : { privateKey: d.privateKey });
    destination = { type: 'sftp', host: d.host, port: d.port, username: d.username, path: d.path };
    hostKey = d.hostKey ?? null;
  } else if (d.type === 's3') {
    secretField = 'destination.secretAccessKey';
    const problem =
      (d.endpoint ? webhookUrlProblem(d.endpoint, context.allowPrivate) : null) ??
      (d.endpoint || d.bucket
        ? await targetProblem(s3Host({ bucket: d.bucket, region: d.region, endpoint: d.endpoint ?? null }), context.allowPrivate)
        : null);
    if (problem) problems[d.endpoint ? 'destination.endpoint' : 'destination.bucket'] = problem;
    if (d.secretAccessKey) plain = JSON.stringify({ secretAccessKey: d.secretAccessKey });
    destination = {
      type: 's3',
      bucket: d.bucket,
      region: d.region,
      endpoint: d.endpoint ?? null,
      prefix: d.prefix,
      accessKeyId: d.accessKeyId,
    };
  } else if (d.type === 'postgres') {
    secretField = 'destination.connection';
    const read = d.connection ? readConnection(d.connection, context.allowPrivate) : null;
    if (read && 'problem' in read) problems['destination.connection'] = read.problem;
    if (read && !('problem' in read)) {
      const problem = await targetProblem(read.where.host, context.allowPrivate);
      if (problem) problems['destination.connection'] = `names a server that cannot be used: ${problem}`;
      if (read.password !== null) plain = JSON.stringify({ password: read.password });
      destination = { type: 'postgres', ...read.where, schema: d.schema, table: d.table };
    } else destination = { type: 'postgres', schema: d.schema, table: d.table } as Delivery['destination'];
    Object.assign(problems, tableRules(value, existing));
  } else {
    const problem = d.url
      ? (webhookUrlProblem(d.url, context.allowPrivate) ?? (await targetProblem(new URL(d.url).hostname, context.allowPrivate)))
      : null;
    if (problem) problems['destination.url'] = problem;
    if (d.secret) plain = d.secret;
    destination = { type: 'webhook', url: d.url };
  }
  const binding = whole ? secretBinding(destination) : null;
  let secret: string | null = null;
  if (d.type !== 'directory' && plain === null && !problems[secretField]) {
    const kept = binding !== null && existing?.secret && secretBinding(existing.destination) === binding;
    if (kept) secret = existing.secret;
    else if (binding !== null && existing?.secret && existing.destination.type === destination.type)
      problems[secretField] =
        `must be entered again: the saved one belongs to ${describeBinding(existing.destination)}, and a secret never follows a delivery to another ${MOVED[destination.type] ?? 'URL'}`;
    else if (binding !== null || !existing?.secret) problems[secretField] = SECRET_NEEDED[d.type] ?? 'is required';
  }
  // A server setting is not a field of the form: it is said apart, naming the setting and where it is explained.
  const settings = plain !== null && !context.secretKey ? [SECRET_KEY_UNSET] : [];
  if (Object.keys(problems).length > 0 || settings.length > 0 || !whole) throw invalidDelivery(problems, settings);
  if (plain !== null) secret = sealSecret(plain, context.secretKey!, binding!);
  return { value, destination, secret, hostKey, encryptTo };
}
