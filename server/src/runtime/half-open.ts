import { Server } from 'node:http';
import { fastPath } from './fast-paths';

const on = fastPath({
  name: 'half-open',
  // Not a speed device: it keeps a promise, so FAST_PATHS leaves it on.
  switchable: false,
  guard: () =>
    typeof (new Server() as { httpAllowHalfOpen?: unknown }).httpAllowHalfOpen === 'boolean'
      ? undefined
      : "Node's HTTP server has no httpAllowHalfOpen field to set",
});

/**
 * A client that half-closes once its request is sent (`shutdown(SHUT_WR)`, as `nc -N` and some
 * proxies do) still gets its answer: Node would otherwise drop the request in flight, whose
 * effects may already be committed. Its connection ends after that answer. Node has the
 * setting as a field of its server (`httpAllowHalfOpen`) but no option for it.
 */
export function answerHalfClosedClients(server: Server): void {
  if (on()) (server as { httpAllowHalfOpen?: boolean }).httpAllowHalfOpen = true;
}
