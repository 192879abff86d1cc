import type { Server } from 'node:http';

interface ServerTimeouts {
  keepAliveTimeoutMs: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
}

/**
 * How long a connection may take (D46), checked every CHECK_INTERVAL_MS (`createAppServer`):
 * - idle between requests: KEEP_ALIVE_TIMEOUT_MS, longer than a load balancer's own idle
 *   timeout (commonly 60 s against our 65 s), so the balancer always closes first and never
 *   sends a request on a connection the server is closing;
 * - from a request's first byte to its last header: HEADERS_TIMEOUT_MS, and to the end of
 *   its body REQUEST_TIMEOUT_MS; a client that trickles its request in (slowloris) is answered
 *   408 and closed then, not held open for minutes. Idle time between requests does not count.
 */
export function setServerTimeouts(server: Server, timeouts: ServerTimeouts): void {
  server.keepAliveTimeout = timeouts.keepAliveTimeoutMs;
  server.headersTimeout = timeouts.headersTimeoutMs;
  server.requestTimeout = timeouts.requestTimeoutMs;
}

/** How often Node checks every connection against the header and request timeouts (its default is 30 s). */
export const CHECK_INTERVAL_MS = 1000;
