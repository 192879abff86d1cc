import type { IncomingMessage } from 'node:http';
import proxyAddr from 'proxy-addr';

/** Whether the peer at `hop` (0: the socket's peer, 1: the last X-Forwarded-For entry, …) is a trusted proxy. */
export type TrustProxy = (address: string, hop: number) => boolean;

/**
 * TRUST_PROXY, compiled: `loopback` (default: a reverse proxy on the same machine), `false`
 * (no proxy: the peer is the client), a hop count (that many proxies in front, whatever their
 * addresses), or a comma-separated list of addresses and CIDR ranges (`proxy-addr` names such
 * as `uniquelocal` too). Trusting every peer is refused: any client could then name its own
 * address and escape the per-IP limits (D4). Throws with a readable message on a bad value.
 */
export function compileTrustProxy(text: string): TrustProxy {
  const value = text.trim();
  if (value === 'false') return () => false;
  if (value === 'loopback') return TRUST_LOOPBACK;
  if (value === 'true' || value === '*') {
    throw new Error('trusting every peer lets any client choose its address; name the proxies or a hop count');
  }
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    return (_address, hop) => hop < hops;
  }
  const entries = value
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  if (entries.length === 0) throw new Error('expected false, a hop count, or addresses and CIDR ranges');
  try {
    return proxyAddr.compile(entries);
  } catch (err) {
    throw new Error(err instanceof Error ? err.message : String(err));
  }
}

/** A canonical dotted IPv4 address (no leading zeros), as sockets and proxies write them. */
const DOTTED_IPV4 = /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/**
 * The default: only a reverse proxy on the same machine names the client. Answered from the
 * text for the forms sockets and proxies write, since every request walks its client's
 * address through it; any other form is parsed by proxy-addr.
 */
const parsedLoopback = proxyAddr.compile('loopback');
export const TRUST_LOOPBACK: TrustProxy = (address, hop) => {
  if (address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1') return true;
  if (DOTTED_IPV4.test(address)) return address.startsWith('127.');
  return parsedLoopback(address, hop);
};

/**
 * The address rate limits count by (D4): walking X-Forwarded-For from the nearest hop, the
 * first address that is not a trusted proxy. An untrusted peer's header is ignored, so no
 * client can pick its own address. The answer is proxy-addr's, without building the list of
 * every hop first: the header is read from its end, one entry at a time, as far as the first
 * untrusted hop (every shopper read walks it, scripts/bench/public-read.ts).
 */
export function clientIp(req: IncomingMessage, trust: TrustProxy): string {
  const socketAddress = req.socket.remoteAddress;
  if (!socketAddress) return 'unknown';
  const sent = req.headers['x-forwarded-for'];
  if (!sent) return socketAddress;
  // Node joins repeated X-Forwarded-For lines with commas: one string in practice.
  const header = typeof sent === 'string' ? sent : sent.join(',');
  // proxy-addr's hops: the peer (hop 0), then the header's entries from the last; each hop
  // but the farthest is kept only while trusted. Entries are split on commas, spaces around
  // them trimmed, empty ones skipped, as its parser (`forwarded`) does.
  let hop = 0;
  let nearest = socketAddress;
  let end = header.length;
  let start = end;
  for (let i = header.length - 1; i >= -1; i--) {
    const c = i === -1 ? 0x2c : header.charCodeAt(i);
    if (c === 0x20) {
      if (start === end) start = end = i;
    } else if (c === 0x2c) {
      if (start !== end) {
        if (!trust(nearest, hop)) return nearest;
        nearest = header.substring(start, end);
        hop++;
      }
      start = end = i;
    } else start = i;
  }
  return nearest;
}
