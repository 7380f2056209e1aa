import { z } from 'zod';

/** POST /api/changes/poll (202; lib/changes/poller.ts `PollAsked`): `since` is reached by GET /api/changes' lastCompletePollAt when it ended. */
export const pollAnswerSchema = z
  .strictObject({ poll: z.enum(['started', 'running', 'requested']), since: z.string() })
  .meta({ id: 'PollAsked' });
