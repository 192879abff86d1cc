/**
 * What e-mail to shoppers (D42) needs of the operator's settings, passed in by the process
 * (server/src/config.ts satisfies it), so that mail code never reads the configuration itself.
 */
export interface MailSettings {
  /** `smtp://` or `smtps://`, credentials in the URL; absent: no e-mail leaves (`NOT_SENT`). */
  smtpUrl: string | undefined;
  /** The sender's address; the store's name is its display name. */
  mailFrom: string;
  /** Seconds between attempts of one message; `FAILED` after the last. */
  mailRetrySchedule: number[];
  /** How long one SMTP attempt may wait for the connection, the greeting or any reply. */
  mailTimeoutMs: number;
  /** Development without an SMTP server: each message is written here as a `.eml` file. */
  mailDir: string | undefined;
  /** Where the links in messages point (D41). */
  publicBaseUrl: string;
  /** The server key: the claim links of D41 carry a MAC under a key derived from it. */
  secretKey: Buffer;
}
