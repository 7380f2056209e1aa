import { createPortalLogger } from '@/lib/log/create.mjs';

// The portal's log lines go through console under vitest, where vitest.config.ts holds them back (VITEST_LOGS=1 prints them).
(globalThis as { __portalLog?: unknown }).__portalLog = createPortalLogger({
  destination: { write: (line: string) => console.log(line.trimEnd()) },
});
