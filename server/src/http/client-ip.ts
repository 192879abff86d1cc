import type { IncomingMessage } from 'node:http';

const LOOPBACK = /^(127\.|::1$|::ffff:127\.)/;

/**
 * The address rate limits count by (D4). A reverse proxy on the same machine (loopback) is
 * trusted to name the client in X-Forwarded-For; any other peer is the client itself.
 */
export function clientIp(req: IncomingMessage): string {
  const peer = req.socket.remoteAddress ?? 'unknown';
  if (!LOOPBACK.test(peer)) return peer;
  const forwarded = req.headers['x-forwarded-for'];
  if (typeof forwarded !== 'string') return peer;
  const hops = forwarded
    .split(',')
    .map((h) => h.trim())
    .filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) if (!LOOPBACK.test(hops[i]!)) return hops[i]!;
  return peer;
}
