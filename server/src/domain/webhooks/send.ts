import { createHmac } from 'node:crypto';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import {
  type ApiVersion,
  LATEST_API_VERSION,
  WEBHOOK_HEADERS,
  WEBHOOK_SIGNATURE_VERSION,
  type WebhookTopic,
  webhookEnvelope,
} from '@protection-service/contract';
import { currentTraceparent } from '../../lib/tracing';
import { isNonPublicAddress } from './webhook-urls';

/** The user-agent of every delivery (D32). */
export const WEBHOOK_USER_AGENT = 'protection-service-webhooks/1.0';
/** At most this much of an answer is read (D32); the rest is discarded with the connection. */
const MAX_ANSWER_BYTES = 64 * 1024;
/** At most this much of an answer is kept in the attempt log (D35). */
export const EXCERPT_BYTES = 1024;
/** The longest wait a 429's Retry-After can ask for (D35). */
export const MAX_RETRY_AFTER_S = 24 * 60 * 60;

interface WireEvent {
  id: string;
  topic: WebhookTopic;
  createdAt: Date;
  body: unknown;
  /** The version the body is rendered in: the receiver's pin when the event was recorded (D44); the latest when not given. */
  apiVersion?: ApiVersion;
  /** D45: false for an event of a test store; live when not given. */
  livemode?: boolean;
}

/** One attempt as the D34 log shows it. */
export interface AttemptResult {
  attemptedAt: Date;
  durationMs: number;
  /** Null when no HTTP answer came (timeout, refused, refused address). */
  statusCode: number | null;
  /** Why the attempt failed; null on a 2xx. */
  error: string | null;
  /** At most 1 KiB of the answer. */
  response: string | null;
  /** Seconds a 429 asked us to wait, capped at 24 h. */
  retryAfterS: number | null;
}

export const delivered = (r: AttemptResult): boolean => r.error === null;

/**
 * The delivered body (D32, D44, D45): `{id, topic, apiVersion, livemode, createdAt, body}`,
 * the body rendered in the version recorded with the delivery, so the same bytes on every
 * retry and redelivery, whatever the app's pin has become since; `livemode` says whether the
 * event is a live store's or a test store's.
 */
export function wireBody(event: WireEvent): string {
  return JSON.stringify(
    webhookEnvelope(event.apiVersion ?? LATEST_API_VERSION, {
      id: event.id,
      topic: event.topic,
      livemode: event.livemode ?? true,
      createdAt: event.createdAt.toISOString(),
      body: event.body,
    }),
  );
}

/**
 * `x-webhook-signature` (D32): `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<raw body>">`
 * keyed by the secret's UTF-8 bytes; one entry per secret, space-separated (D34 rotation).
 */
export function signatureHeader(secrets: readonly string[], id: string, timestamp: number, rawBody: string): string {
  return secrets
    .map((secret) => {
      const mac = createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${id}.${timestamp}.${rawBody}`, 'utf8');
      return `${WEBHOOK_SIGNATURE_VERSION},${mac.digest('base64')}`;
    })
    .join(' ');
}

class RefusedAddress extends Error {
  code = 'EREFUSEDADDRESS';
}

/**
 * Resolves the host and refuses it when any address it resolves to is loopback, link-local or
 * private (D35). The socket connects to the address handed back here, so a DNS answer that
 * changes between this check and the connection cannot reach an internal address.
 */
function guardedLookup(
  hostname: string,
  options: { all?: boolean; family?: number | string; hints?: number },
  callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
): void {
  dnsLookup(
    hostname,
    { family: options.family as 0 | 4 | 6 | undefined, hints: options.hints, all: true },
    (err, addresses) => {
      if (err) return callback(err, '');
      const refused = addresses.find((a) => isNonPublicAddress(a.address));
      if (refused || addresses.length === 0) {
        return callback(new RefusedAddress(`${hostname} resolves to a non-public address`), '');
      }
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    },
  );
}

// Keep-alive connections to receivers, one pool per process.
const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 256 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 256 }),
};

interface SendOptions {
  url: string;
  /** The current secret first; after a rotation, the previous one too (D34). */
  secrets: readonly string[];
  event: WireEvent;
  timeoutMs: number;
  allowPrivate: boolean;
}

/**
 * One signed POST of an event to an app (D32, D35): redirects are never followed (a 3xx is a
 * failure), at most 64 KiB of the answer is read, the whole attempt ends after `timeoutMs`,
 * and the host's addresses are checked at delivery time. Never throws: every failure is an
 * attempt result.
 */
export function sendWebhook(options: SendOptions): Promise<AttemptResult> {
  const attemptedAt = new Date();
  const started = performance.now();
  const raw = wireBody(options.event);
  const result = (partial: Partial<AttemptResult> & Pick<AttemptResult, 'error'>): AttemptResult => ({
    attemptedAt,
    durationMs: Math.round(performance.now() - started),
    statusCode: null,
    response: null,
    retryAfterS: null,
    ...partial,
  });
  const target = targetOf(options);
  if (typeof target === 'string') return Promise.resolve(result({ error: target }));
  const { url, agent } = target;
  const headers = signedHeaders(options, raw);
  // With tracing on, the receiver may continue the delivery's trace (W3C Trace Context).
  const traceparent = currentTraceparent();
  if (traceparent) headers.traceparent = traceparent;

  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    const finish = (r: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    const request = (url.protocol === 'https:' ? https : http).request(url, {
      method: 'POST',
      headers,
      agent,
      ...(options.allowPrivate ? {} : { lookup: guardedLookup as never }),
    });
    const timer = setTimeout(() => {
      finish(result({ error: `timed out after ${options.timeoutMs} ms` }));
      request.destroy();
    }, options.timeoutMs);
    request.on('error', (err: NodeJS.ErrnoException) => finish(result({ error: describeError(err) })));
    request.on('response', (res) => readAnswer(res, (answer) => finish(result(answer))));
    request.end(raw);
  });
}

/** The headers of one attempt: the event's id and topic, a fresh timestamp and its signatures (D32, D34). */
function signedHeaders(options: SendOptions, raw: string): Record<string, string> {
  const timestamp = Math.floor(Date.now() / 1000);
  return {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(raw)),
    'user-agent': WEBHOOK_USER_AGENT,
    [WEBHOOK_HEADERS.secret]: options.secrets[0]!,
    [WEBHOOK_HEADERS.id]: options.event.id,
    [WEBHOOK_HEADERS.topic]: options.event.topic,
    [WEBHOOK_HEADERS.apiVersion]: options.event.apiVersion ?? LATEST_API_VERSION,
    [WEBHOOK_HEADERS.timestamp]: String(timestamp),
    [WEBHOOK_HEADERS.signature]: signatureHeader(options.secrets, options.event.id, timestamp, raw),
  };
}

/** Where an attempt goes, or why it cannot go: an http(s) URL whose literal address is public unless allowed. */
function targetOf(options: SendOptions): { url: URL; agent: http.Agent } | string {
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    return 'invalid webhook URL';
  }
  const agent = url.protocol === 'http:' || url.protocol === 'https:' ? agents[url.protocol] : undefined;
  if (!agent) return 'webhook URL must be http or https';
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  if (!options.allowPrivate && isIP(literal) !== 0 && isNonPublicAddress(literal)) {
    return 'webhook URL points at a non-public address';
  }
  return { url, agent };
}

/** Reads at most MAX_ANSWER_BYTES of an answer and reports it as an attempt's outcome. */
function readAnswer(
  res: http.IncomingMessage,
  report: (answer: Partial<AttemptResult> & Pick<AttemptResult, 'error'>) => void,
): void {
  const statusCode = res.statusCode ?? 0;
  const chunks: Buffer[] = [];
  let size = 0;
  const done = () => {
    const answer = Buffer.concat(chunks);
    const response = answer.length > 0 ? answer.subarray(0, EXCERPT_BYTES).toString('utf8') : null;
    let error: string | null = null;
    if (statusCode >= 300 && statusCode < 400) error = `answered ${statusCode}; redirects are not followed`;
    else if (statusCode < 200 || statusCode >= 300) error = `answered ${statusCode}`;
    const retryAfterS = statusCode === 429 ? parseRetryAfter(res.headers['retry-after']) : null;
    report({ statusCode, error, response, retryAfterS });
    if (size >= MAX_ANSWER_BYTES) res.destroy();
  };
  res.on('data', (chunk: Buffer) => {
    if (size >= MAX_ANSWER_BYTES) return;
    chunks.push(chunk.subarray(0, MAX_ANSWER_BYTES - size));
    size += chunk.length;
    if (size >= MAX_ANSWER_BYTES) done();
  });
  res.on('end', done);
  res.on('error', (err) => report({ statusCode, error: describeError(err) }));
}

function describeError(err: NodeJS.ErrnoException): string {
  if (err instanceof RefusedAddress) return err.message;
  switch (err.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host name not found';
    case 'ECONNRESET':
      return 'connection reset';
    default:
      return (err.code ? `${err.code}: ${err.message}` : err.message).slice(0, 1024);
  }
}

/** `Retry-After` as seconds (delta or HTTP date), capped at 24 h; null when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined): number | null {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return null;
  const seconds = /^\d{1,10}$/.test(text.trim())
    ? Number(text.trim())
    : Math.ceil((Date.parse(text) - Date.now()) / 1000);
  if (!Number.isFinite(seconds)) return null;
  return Math.min(Math.max(seconds, 0), MAX_RETRY_AFTER_S);
}
