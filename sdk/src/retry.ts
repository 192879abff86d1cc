/**
 * Retries of calls that are safe to repeat. A call is repeated after a 429, 502, 503 or 504
 * answer, or a network failure (including an attempt's own timeout), at most `maxRetries`
 * times. It waits what the answer's `Retry-After` asks (seconds or an HTTP date, at most
 * `maxDelayMs`), otherwise an exponential backoff with full jitter: a random wait between 0
 * and `baseDelayMs × 2^retry`, capped at `maxDelayMs`.
 */

/**
 * How a client retries (`createClient({ retry })`).
 *
 * @example
 * const client = createClient({ baseUrl, accessToken, retry: { maxRetries: 4, maxDelayMs: 10_000 } });
 */
export interface RetryOptions {
  /** Attempts after the first; 2 by default, 0 for none. */
  maxRetries?: number;
  /** The backoff ceiling of the first retry, doubled for each further one; 500 ms by default. */
  baseDelayMs?: number;
  /** The longest wait before a retry, `Retry-After` included; 20 s by default. */
  maxDelayMs?: number;
}

/**
 * What `retry` is when not given: 2 retries, backoff from 500 ms, waits of at most 20 s.
 *
 * @example
 * const client = createClient({ baseUrl, retry: { ...DEFAULT_RETRY, maxRetries: 5 } });
 */
export const DEFAULT_RETRY: Readonly<Required<RetryOptions>> = { maxRetries: 2, baseDelayMs: 500, maxDelayMs: 20_000 };

/**
 * The statuses worth another attempt: rate limited, or a gateway that could not reach the service.
 *
 * @example
 * if (RETRY_STATUSES.has(res.status)) console.warn('still failing after the retries', res.status);
 */
export const RETRY_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

interface Attempt<T> {
  response: Response;
  body: T;
}

/**
 * `run(repeatable, signal, attempt)` calls `attempt` until it gives an answer that is not worth
 * retrying, or the retries are spent (then the last answer or error is the call's). A call that
 * is not `repeatable` gets exactly one attempt. `signal` (the caller's) stops the waiting too.
 */
export function withRetries(options: RetryOptions | false | undefined) {
  // Only `false` turns retries off; without `retry` a client gets DEFAULT_RETRY, as documented.
  const { maxRetries, baseDelayMs, maxDelayMs } = {
    ...DEFAULT_RETRY,
    ...(options === false ? { maxRetries: 0 } : options),
  };
  return async <T>(
    repeatable: boolean,
    signal: AbortSignal | undefined,
    attempt: () => Promise<Attempt<T>>,
  ): Promise<Attempt<T>> => {
    const retries = repeatable ? maxRetries : 0;
    for (let retry = 0; ; retry++) {
      let wait: number;
      try {
        const answer = await attempt();
        if (retry >= retries || !RETRY_STATUSES.has(answer.response.status)) return answer;
        wait = retryAfterMs(answer.response.headers.get('retry-after'), maxDelayMs) ?? backoff(retry);
      } catch (error) {
        if (retry >= retries || signal?.aborted || !isNetworkFailure(error)) throw error;
        wait = backoff(retry);
      }
      await sleep(wait, signal);
    }
  };

  function backoff(retry: number): number {
    return Math.random() * Math.min(maxDelayMs, baseDelayMs * 2 ** retry);
  }
}

/** `Retry-After` in milliseconds (RFC 9110 §10.2.3: delay-seconds or an HTTP date), capped. */
export function retryAfterMs(value: string | null, maxMs: number, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  const ms = /^\d+$/.test(trimmed) ? Number(trimmed) * 1000 : Date.parse(trimmed) - now;
  if (Number.isNaN(ms)) return undefined;
  return Math.min(Math.max(ms, 0), maxMs);
}

/**
 * fetch rejects with a `TypeError` when the connection fails (refused, reset, DNS), and an
 * attempt's own timeout aborts it with a `TimeoutError`. A caller's abort is not retried.
 */
function isNetworkFailure(error: unknown): boolean {
  if (error instanceof TypeError) return true;
  return typeof error === 'object' && error !== null && (error as { name?: unknown }).name === 'TimeoutError';
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
