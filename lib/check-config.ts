import 'server-only';
import { ConfigError, getConfig } from './config';

// Imported once by instrumentation.ts at server start (Node runtime only).
try {
  const config = getConfig();
  if (config.NODE_ENV === 'production' && !config.AUTH_SECRET && !config.NEXTAUTH_SECRET) {
    throw new ConfigError(['AUTH_SECRET is required in production (or NEXTAUTH_SECRET)']);
  }
} catch (error) {
  console.error(`[portal] ${error instanceof ConfigError ? error.message : String(error)}`);
  process.exit(1);
}
