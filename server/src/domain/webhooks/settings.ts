/**
 * What webhook delivery needs of the operator's settings (D32, D35), passed in by the process
 * (server/src/config.ts satisfies it), so that delivery never reads the configuration itself.
 */
export interface WebhookSettings {
  /** The server key: webhook secrets are encrypted with a key derived from it. */
  secretKey: Buffer;
  /** Concurrent deliveries of this process; 0 delivers nothing. */
  webhookWorkers: number;
  webhookTimeoutMs: number;
  /** Seconds between attempts. */
  webhookRetrySchedule: number[];
  /** Deliver to loopback and private addresses (development and tests only). */
  webhookAllowPrivateUrls: boolean;
  /** D48: events whose deliveries are all final are deleted this many days after they were recorded. */
  eventRetentionDays: number;
}
