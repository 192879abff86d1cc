/**
 * Whether an error means PostgreSQL could not be reached or went away mid-statement (a restart,
 * a failover, a full connection table), as opposed to an error in what was asked of it. Such
 * a request is answered 503 with Retry-After (D46): the client may send it again, and nothing
 * it began was acknowledged.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { code, message, errors } = err as { code?: unknown; message?: unknown; errors?: unknown };
  if (typeof code === 'string') {
    // SQLSTATE class 08: connection exception; 57P01-57P03: shut down or not yet accepting;
    // 53300: too many connections.
    if (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || code === '53300')
      return true;
    if (SOCKET_CODES.has(code)) return true;
  }
  // Connecting to several addresses fails with all of their errors together.
  if (Array.isArray(errors) && errors.length > 0 && errors.every(isDatabaseUnavailable)) return true;
  return typeof message === 'string' && PG_CONNECTION_MESSAGES.some((m) => message.startsWith(m));
}

/**
 * Whether PostgreSQL rolled a transaction back for a concurrent one: a deadlock it broke
 * (40P01) or a serialization failure (40001). Nothing of it was applied, and the same request
 * sent again normally succeeds, so it is answered like an outage (503 with Retry-After), never
 * 500. Concurrent changes take their row locks in one order where they can (`lockedByKey`);
 * this covers the rest.
 */
export function isConcurrencyAbort(err: unknown): boolean {
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  return code === '40P01' || code === '40001';
}

const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** What `pg` and its pool say, without a code, when a connection is lost or cannot be had in time. */
const PG_CONNECTION_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'Cannot use a pool after calling end on the pool',
];
