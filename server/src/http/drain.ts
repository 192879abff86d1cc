import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { startLoop } from '../lib/loop';
import { answerInFlight } from '../runtime/in-flight-answer';

/** How long in-flight requests may take to finish after SIGTERM (D46). */
export const DRAIN_MS = 10_000;

/** How often, while draining, answers in flight are told to close their connection and idle ones are closed. */
const SWEEP_MS = 50;

/**
 * Lets an HTTP server stop without dropping a request (D46): `drain` stops accepting, closes
 * idle keep-alive connections at once, has every answer still to be written say
 * `Connection: close` (so its connection ends with it, instead of idling out
 * KEEP_ALIVE_TIMEOUT_MS), and resolves when the last connection is gone, or after `capMs`
 * with whatever is left cut off.
 */
export function drainable(server: Server): { drain(capMs: number): Promise<void> } {
  // One entry per connection, not per request: the answers in flight are found through them.
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  return {
    async drain(capMs) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Requests that still arrive on open connections are the last on theirs.
      server.on('request', (_req, res: ServerResponse) => {
        res.shouldKeepAlive = false;
      });
      const sweep = () => {
        for (const socket of sockets) {
          const answer = answerInFlight(socket);
          if (answer && !answer.headersSent) answer.shouldKeepAlive = false;
        }
        // Connections with no request in flight, including those whose answer just ended.
        server.closeIdleConnections();
      };
      const sweeping = startLoop('drain sweep', { everyMs: SWEEP_MS, jitter: 0, runAtStart: true }, sweep);
      const cap = setTimeout(() => server.closeAllConnections(), capMs);
      await closed;
      await sweeping.stop();
      clearTimeout(cap);
    },
  };
}
