import type { Logger } from 'pino';
import type { Config } from './config';
import type { Db } from './db/database';
import type { RateLimits } from './http/rate-limit';
import type { ServiceMetrics } from './metrics';

/** What createApp (server/src/app.ts) is built from; route handlers see it too (routes/context.ts). */
export interface AppDeps {
  db: Db;
  config: Config;
  logger: Logger;
  /** Check every response against the contract (on in tests: a mismatch answers 500). */
  responseValidation?: boolean;
  /** True once SIGTERM arrived: /readyz answers 503 so traffic moves elsewhere. */
  isShuttingDown?: () => boolean;
  /** D4 limits over the configured ones, where a test needs small ones. */
  rateLimits?: Partial<RateLimits>;
  /** Where request figures go (main.ts serves them on METRICS_PORT); a private set otherwise. */
  metrics?: ServiceMetrics;
}
