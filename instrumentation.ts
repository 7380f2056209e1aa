/** Starts the portal with its server (lib/start/portal.ts); never during the build. */
export async function register() {
  if (process.env.NEXT_RUNTIME === 'nodejs' && process.env.NEXT_PHASE !== 'phase-production-build') {
    const { startPortal } = await import('./lib/start/portal');
    await startPortal();
  }
}
