import type { Kysely } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a migration sees the schema as it was then, not today's types
export type AnyDb = Kysely<any>;
