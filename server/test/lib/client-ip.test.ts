import type { IncomingMessage } from 'node:http';
import proxyAddr from 'proxy-addr';
import { describe, expect, it } from 'vitest';
import { clientIp, compileTrustProxy } from '../../src/http/client-ip';

/** The address a request is counted by (D4) is proxy-addr's, for every header and trust setting. */
describe('clientIp', () => {
  const entries = ['127.0.0.1', '10.0.0.7', '::1', '203.0.113.9', '127.0.0.2', '', ' ', 'x y', '::ffff:127.0.0.1'];
  const separators = [',', ', ', ' ,', ' , ', ',,'];
  const trusts = ['loopback', 'false', '0', '1', '2', '10.0.0.0/8, loopback'].map(compileTrustProxy);

  it('answers as proxy-addr does', () => {
    let seed = 1;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let round = 0; round < 5000; round++) {
      const parts = Array.from({ length: next(5) }, () => entries[next(entries.length)]!);
      let header = '';
      for (const [i, part] of parts.entries()) header += (i > 0 ? separators[next(separators.length)] : '') + part;
      const headers = next(6) === 0 ? {} : { 'x-forwarded-for': next(4) === 0 ? ` ${header} ` : header };
      const remoteAddress = ['127.0.0.1', '203.0.113.1', '::1'][next(3)];
      const req = { headers, socket: { remoteAddress }, connection: { remoteAddress } } as unknown as IncomingMessage;
      for (const trust of trusts) expect(clientIp(req, trust)).toBe(proxyAddr(req, trust));
    }
  });
});
