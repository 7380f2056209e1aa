import type { TestProject } from 'vitest/node';
import { postgresMissing, startPostgres } from './postgres';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The test PostgreSQL's admin URL, or null where none could be started (said loudly; refused on CI). */
    postgresUrl: string | null;
  }
}

/** One PostgreSQL for the whole unit and contract run; each suite makes its own databases on it. */
export default async function setup(project: TestProject) {
  const server = await startPostgres();
  if (!server) {
    const message = postgresMissing('the PostgreSQL store tests');
    console.warn(`\n${'!'.repeat(100)}\n${message}\n${'!'.repeat(100)}\n`);
  }
  project.provide('postgresUrl', server?.url ?? null);
  return () => server?.destroy();
}
