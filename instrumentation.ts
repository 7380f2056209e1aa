/** Validates the configuration once, when the server starts: a wrong value stops it with the variable named. */
export async function register() {
  if (process.env.NEXT_RUNTIME === 'nodejs' && process.env.NEXT_PHASE !== 'phase-production-build') {
    await import('./lib/check-config');
  }
}
