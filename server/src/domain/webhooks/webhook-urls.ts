import { BlockList, isIP } from 'node:net';
import { refuse } from '../../lib/refusal';

/**
 * Addresses a webhook may not point at (D32): loopback, link-local, private, shared
 * (CGNAT), unspecified, multicast, reserved and documentation ranges, IPv4 and IPv6.
 * IPv4-mapped IPv6 addresses are matched against the IPv4 rules by BlockList.
 */
const NON_PUBLIC = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  NON_PUBLIC.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  NON_PUBLIC.addSubnet(net, prefix, 'ipv6');
}

/** True for an IP address a webhook may not reach (D32, D35). */
export function isNonPublicAddress(address: string): boolean {
  const family = isIP(address);
  return family !== 0 && NON_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * Why a webhook URL is refused, or null (D32): it must be HTTPS and must not name a loopback,
 * link-local or private address, unless the operator allows that (WEBHOOK_ALLOW_PRIVATE_URLS).
 * Literal IPs are classified; of host names only `localhost` and `*.localhost` are known to
 * be loopback without DNS (RFC 6761). Delivery re-checks resolved addresses.
 */
export function webhookUrlProblem(value: string, allowPrivate: boolean): string | null {
  if (allowPrivate) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'webhookUrl must be an absolute URL';
  }
  if (url.protocol !== 'https:') return 'webhookUrl must be https';
  // WHATWG URL has already normalized 0x7f.1, 2130706433 and friends to dotted IPv4.
  const host = url.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return 'webhookUrl must not point at a loopback host';
  if (isNonPublicAddress(host)) {
    return 'webhookUrl must not point at a loopback, link-local or private address';
  }
  return null;
}

/** Refuses (400, at `body.<field>`) a webhook URL `webhookUrlProblem` finds wrong. */
export function checkWebhookUrl(value: string, allowPrivate: boolean, field = 'webhookUrl'): void {
  const problem = webhookUrlProblem(value, allowPrivate);
  if (problem) throw refuse.invalidAt(`body.${field}`, problem.replace(/^webhookUrl/, field));
}
