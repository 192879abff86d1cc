import type { Server } from 'node:http';

/**
 * Behind a load balancer: an idle keep-alive connection stays open longer than the
 * balancer's own idle timeout (KEEP_ALIVE_TIMEOUT_MS, default 65 s against the common 60 s),
 * so the balancer always closes first and never sends a request on a connection the server
 * is closing. Headers must arrive within a second more (Node wants it above keep-alive).
 */
export function setServerTimeouts(server: Server, keepAliveTimeoutMs: number): void {
  server.keepAliveTimeout = keepAliveTimeoutMs;
  server.headersTimeout = keepAliveTimeoutMs + 1000;
  server.requestTimeout = Math.max(server.requestTimeout, server.headersTimeout);
}
