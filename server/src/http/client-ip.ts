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
 * client can pick its own address.
 */
export function clientIp(req: IncomingMessage, trust: TrustProxy): string {
  if (!req.socket.remoteAddress) return 'unknown';
  return proxyAddr(req, trust);
}
