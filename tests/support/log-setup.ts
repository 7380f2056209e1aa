import { createPortalLogger } from '@/lib/log/create.mjs';
import { server } from '@/lib/process-state';
import { ownerOnlyTestKey } from './test-key';

// The portal's log lines go through console under vitest, where vitest.config.ts holds them back (VITEST_LOGS=1 prints them).
server.log = createPortalLogger({
  destination: { write: (line: string) => console.log(line.trimEnd()) },
});

// Proofs made under vitest are signed with the tests' own key (a fixture, never a real one), not one made in .data.
process.env.PORTAL_SIGNING_KEY_FILE ||= ownerOnlyTestKey();
