import {
  type ApiVersion,
  WEBHOOK_HEADERS,
  WEBHOOK_SIGNATURE_VERSION,
  webhookBodySchema,
  ZWebhookEvent,
} from '@protection-service/contract';
// The generated type, not the contract's z.infer: the published declarations stay free of zod.
import type { TWebhookEvent } from './generated/client';

/**
 * Why a delivery was refused: {@link WebhookVerificationError.reason}.
 *
 * @example
 * const stale = (reason: WebhookVerificationReason) => reason === 'timestamp';
 */
export type WebhookVerificationReason = 'missing-header' | 'timestamp' | 'signature' | 'body' | 'version';

/**
 * A delivery that is not provably from the service, or not a webhook this SDK knows. Answer it
 * with a 4xx and do not act on it.
 *
 * @example
 * try {
 *   await verifyWebhook({ secret, headers: req.headers, body: req.body });
 * } catch (e) {
 *   if (e instanceof WebhookVerificationError) return res.status(400).send(e.reason);
 *   throw e;
 * }
 */
export class WebhookVerificationError extends Error {
  override readonly name: string = 'WebhookVerificationError';
  constructor(
    message: string,
    readonly reason: WebhookVerificationReason,
  ) {
    super(message);
  }
}

/**
 * What {@link verifyWebhook} checks: the raw body and headers of a delivery, against the secret.
 *
 * @example
 * const options: VerifyWebhookOptions = { secret: [newSecret, oldSecret], headers: req.headers, body: rawBody };
 */
export interface VerifyWebhookOptions {
  /** The webhook secret `svc_whsec_…`; during a rotation, both (any one matching is enough). */
  secret: string | readonly string[];
  /** The request headers: a `Headers`, or a plain object as Node and most frameworks give them. */
  headers: Headers | Record<string, string | readonly string[] | undefined>;
  /** The raw request body, exactly as received (not re-serialised JSON). */
  body: string | Uint8Array;
  /** How far the signed timestamp may be from now, in seconds (default 300). */
  toleranceSeconds?: number;
  /**
   * The dated API version your code reads webhook bodies in (your app's pinned version, D44):
   * a delivery rendered in another version (recorded before you changed the pin) is refused
   * with reason `version`, so you can handle it apart. Unchecked when left out.
   */
  apiVersion?: ApiVersion;
}

/**
 * How far (in seconds) a delivery's signed timestamp may be from now: 5 minutes by default.
 *
 * @example
 * await verifyWebhook({ secret, headers, body, toleranceSeconds: 2 * DEFAULT_WEBHOOK_TOLERANCE_S });
 */
export const DEFAULT_WEBHOOK_TOLERANCE_S = 300;

const encoder = new TextEncoder();

function header(headers: VerifyWebhookOptions['headers'], name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const plain = headers as Record<string, string | readonly string[] | undefined>;
  const key = Object.keys(plain).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : plain[key];
  return typeof value === 'string' ? value : value?.[0];
}

function base64ToBytes(text: string): Uint8Array | null {
  try {
    const binary = atob(text);
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

/** Compares two byte strings in time that depends only on their length. */
function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

async function hmac(secret: string, message: Uint8Array): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
  ]);
  // A copy is backed by a plain ArrayBuffer, which every lib's BufferSource accepts.
  return new Uint8Array(await crypto.subtle.sign('HMAC', key, new Uint8Array(message)));
}

/**
 * Checks a webhook delivery (D32) and answers its event, typed by `topic`. The signature
 * `x-webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<raw body>">` must match
 * one of the secrets (after a rotation the service sends two signatures, space-separated);
 * the timestamp must be within `toleranceSeconds` of now, so a captured delivery cannot be
 * replayed later; the body is rendered in the dated API version `event.apiVersion` names (the
 * app's pin when the event was recorded, also sent as `webhook-api-version`), checked against
 * `apiVersion` when given. Throws {@link WebhookVerificationError} otherwise. Deduplicate by `event.id`:
 * a delivery may arrive more than once.
 *
 * @example
 * app.post('/webhooks', express.raw({ type: 'application/json' }), async (req, res) => {
 *   const event = await verifyWebhook({ secret: process.env.WEBHOOK_SECRET!, headers: req.headers, body: req.body });
 *   if (event.topic === 'claim/approved') refund(event.body.resolutions);
 *   res.sendStatus(200);
 * });
 */
export async function verifyWebhook(options: VerifyWebhookOptions): Promise<TWebhookEvent> {
  const id = header(options.headers, WEBHOOK_HEADERS.id);
  const timestamp = header(options.headers, WEBHOOK_HEADERS.timestamp);
  const signature = header(options.headers, WEBHOOK_HEADERS.signature);
  for (const [name, value] of [
    [WEBHOOK_HEADERS.id, id],
    [WEBHOOK_HEADERS.timestamp, timestamp],
    [WEBHOOK_HEADERS.signature, signature],
  ] as const) {
    if (!value) throw new WebhookVerificationError(`missing ${name} header`, 'missing-header');
  }
  const tolerance = options.toleranceSeconds ?? DEFAULT_WEBHOOK_TOLERANCE_S;
  if (!/^\d{1,15}$/.test(timestamp!) || Math.abs(Date.now() / 1000 - Number(timestamp)) > tolerance) {
    throw new WebhookVerificationError('timestamp outside the tolerance', 'timestamp');
  }

  const raw = typeof options.body === 'string' ? encoder.encode(options.body) : options.body;
  const prefix = encoder.encode(`${id}.${timestamp}.`);
  const signed = new Uint8Array(prefix.length + raw.length);
  signed.set(prefix);
  signed.set(raw, prefix.length);
  const presented = signature!
    .split(' ')
    .filter((entry) => entry.startsWith(`${WEBHOOK_SIGNATURE_VERSION},`))
    .map((entry) => base64ToBytes(entry.slice(WEBHOOK_SIGNATURE_VERSION.length + 1)))
    .filter((bytes): bytes is Uint8Array => bytes !== null);
  const secrets = typeof options.secret === 'string' ? [options.secret] : options.secret;
  let matched = false;
  for (const secret of secrets) {
    const expected = await hmac(secret, signed);
    // Every comparison runs, so the time taken says nothing about which one matched.
    for (const candidate of presented) matched = equalBytes(expected, candidate) || matched;
  }
  if (!matched) throw new WebhookVerificationError('no signature matches the secret', 'signature');

  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(raw));
  } catch {
    throw new WebhookVerificationError('the body is not JSON', 'body');
  }
  const event = ZWebhookEvent.safeParse(parsed);
  if (!event.success || event.data.id !== id) {
    throw new WebhookVerificationError('the body is not a webhook event of this version', 'body');
  }
  // D44: the signed body names the version it is rendered in; the header, when sent, agrees.
  const versionHeader = header(options.headers, WEBHOOK_HEADERS.apiVersion);
  if (versionHeader !== undefined && versionHeader !== event.data.apiVersion) {
    throw new WebhookVerificationError(`${WEBHOOK_HEADERS.apiVersion} disagrees with the body`, 'body');
  }
  // D44: the body holds only what its version has (D54: no tracking claim type before 2027-01-15).
  if (!webhookBodySchema(event.data.apiVersion, event.data.topic).safeParse(event.data.body).success) {
    throw new WebhookVerificationError('the body is not a webhook event of this version', 'body');
  }
  if (options.apiVersion !== undefined && event.data.apiVersion !== options.apiVersion) {
    throw new WebhookVerificationError(
      `the delivery is rendered in API version ${event.data.apiVersion}, not ${options.apiVersion}`,
      'version',
    );
  }
  return event.data;
}
