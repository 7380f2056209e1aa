import type { DestinationStream, Logger } from 'pino';

export const REDACTED: string;
export function secretsOf(env: Record<string, string | undefined>): string[];
export function scrubber(secrets: string[]): (line: string) => string;
export function createPortalLogger(options?: {
  env?: Record<string, string | undefined>;
  fd?: number;
  destination?: DestinationStream;
}): Logger;
export function captureConsole(
  logger: Logger,
  options?: {
    context?: () => Record<string, unknown> | undefined;
    special?: (error: Error, fields: Record<string, unknown>) => boolean;
  },
): void;
