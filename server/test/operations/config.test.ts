import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import proxyAddr from 'proxy-addr';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { freePort } from '../../src/free-port';
import { clientIp } from '../../src/http/client-ip';
import { RATE_LIMITS } from '../../src/http/rate-limit';
import { runScript, startServiceProcess } from '../harness/processes';
import { cloneDatabase } from '../harness/server';

const SECRET_KEY = randomBytes(32).toString('base64url');
const load = (env: Record<string, string>) => loadConfig({ SECRET_KEY, ...env });

/** The operator settings: parsed by the zod config, and a wrong one stops the start by name. */
describe('configuration', () => {
  it('defaults to the D4 limits, loopback proxies, one process, no metrics, 65 s keep-alive, JSON logs', () => {
    const config = load({});
    expect(config.rateLimits).toEqual(RATE_LIMITS);
    expect(config.rateLimits).toEqual({ token: 600, auth: 60, sessionVerify: 30, public: 1200 });
    expect(config.webConcurrency).toBe(1);
    expect(config.metricsPort).toBeUndefined();
    expect(config.keepAliveTimeoutMs).toBe(65_000);
    expect(config.logFormat).toBe('json');
    // D48: webhook events whose deliveries are all final are kept 30 days.
    expect(config.eventRetentionDays).toBe(30);
    expect(config.trustProxy('127.0.0.1', 0)).toBe(true);
    expect(config.trustProxy('10.0.0.1', 0)).toBe(false);
  });

  it('names the environment from DEPLOYMENT_ENVIRONMENT, else from the database the operator gave', () => {
    // No DATABASE_URL: the embedded database of a development install.
    expect(load({}).deploymentEnvironment).toBe('local');
    expect(load({ DATABASE_URL: 'postgres://db/x' }).deploymentEnvironment).toBe('production');
    expect(load({ DATABASE_URL: 'postgres://db/x', DEPLOYMENT_ENVIRONMENT: 'staging' }).deploymentEnvironment).toBe(
      'staging',
    );
    expect(load({ DEPLOYMENT_ENVIRONMENT: '' }).deploymentEnvironment).toBe('local');
  });

  it('reads every setting', () => {
    const config = load({
      RATE_LIMIT_TOKEN: '1000',
      RATE_LIMIT_AUTH: '20',
      RATE_LIMIT_SESSION_VERIFY: '10',
      RATE_LIMIT_PUBLIC: '5000',
      TRUST_PROXY: '10.0.0.0/8, 192.168.1.7',
      WEB_CONCURRENCY: '4',
      METRICS_PORT: '9464',
      KEEP_ALIVE_TIMEOUT_MS: '75000',
      LOG_FORMAT: 'pretty',
      EVENT_RETENTION_DAYS: '90',
    });
    expect(config.eventRetentionDays).toBe(90);
    expect(config.rateLimits).toEqual({ token: 1000, auth: 20, sessionVerify: 10, public: 5000 });
    expect(config).toMatchObject({ webConcurrency: 4, metricsPort: 9464, keepAliveTimeoutMs: 75_000 });
    expect(config.logFormat).toBe('pretty');
    expect(config.trustProxy('10.20.30.40', 0)).toBe(true);
    expect(config.trustProxy('192.168.1.7', 1)).toBe(true);
    expect(config.trustProxy('192.168.1.8', 0)).toBe(false);
  });

  it.each([
    ['RATE_LIMIT_TOKEN', 'many'],
    ['RATE_LIMIT_AUTH', '0'],
    ['RATE_LIMIT_SESSION_VERIFY', '-5'],
    ['RATE_LIMIT_PUBLIC', '1.5'],
    ['TRUST_PROXY', 'true'],
    ['TRUST_PROXY', '10.0.0.0/99'],
    ['TRUST_PROXY', 'proxy.internal'],
    ['WEB_CONCURRENCY', '0'],
    ['METRICS_PORT', '70000'],
    ['KEEP_ALIVE_TIMEOUT_MS', 'soon'],
    ['LOG_FORMAT', 'xml'],
    ['DEPLOYMENT_ENVIRONMENT', 'qa'],
    ['EVENT_RETENTION_DAYS', '0'],
    ['EVENT_RETENTION_DAYS', 'a month'],
    ['EVENT_RETENTION_DAYS', '7.5'],
  ])('refuses %s=%s with a message naming it', (name, value) => {
    expect(() => load({ [name]: value })).toThrow(new RegExp(`invalid configuration:\\n {2}${name}: `));
  });

  it('pnpm start stops at once with the message when a value is wrong', async () => {
    const { DATABASE_URL: _ignored, ...env } = process.env;
    const result = await runScript(['server/src/main.ts'], { ...env, SECRET_KEY, RATE_LIMIT_PUBLIC: 'lots' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('invalid configuration:\n  RATE_LIMIT_PUBLIC: Expected number, received nan');
  }, 60_000);

  it('LOG_FORMAT=pretty writes readable lines instead of JSON', async () => {
    const database = await cloneDatabase();
    const port = await freePort();
    const server = await startServiceProcess({
      entry: 'main',
      databaseUrl: database.url,
      secretKey: Buffer.from(SECRET_KEY, 'base64url'),
      port,
      env: { LOG_FORMAT: 'pretty' },
    });
    try {
      const line = server
        .output()
        .split('\n')
        .find((l) => l.includes('protection service listening'))!;
      expect(line).toMatch(/INFO/);
      expect(line.trimStart().startsWith('{')).toBe(false);
    } finally {
      await server.stop();
      await database.drop();
    }
  }, 90_000);
});

describe('TRUST_PROXY: the client address rate limits count by (D4)', () => {
  const request = (peer: string, forwardedFor?: string) =>
    ({
      socket: { remoteAddress: peer },
      connection: { remoteAddress: peer },
      headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
    }) as unknown as IncomingMessage;
  const ip = (trust: string, peer: string, forwardedFor?: string) =>
    clientIp(request(peer, forwardedFor), load({ TRUST_PROXY: trust }).trustProxy);

  it('loopback (default): a proxy on this machine names the client; anyone else is the client', () => {
    expect(ip('loopback', '127.0.0.1', '203.0.113.5')).toBe('203.0.113.5');
    expect(ip('loopback', '::ffff:127.0.0.1', '203.0.113.5')).toBe('203.0.113.5');
    expect(ip('loopback', '::1', '2001:db8::5')).toBe('2001:db8::5');
    expect(ip('loopback', '198.51.100.7', '203.0.113.5')).toBe('198.51.100.7');
    // What the client wrote before the proxy's own entry is not believed.
    expect(ip('loopback', '127.0.0.1', '1.1.1.1, 203.0.113.5')).toBe('203.0.113.5');
    expect(ip('loopback', '127.0.0.1')).toBe('127.0.0.1');
  });

  it('loopback decides from the text exactly as proxy-addr does from the parsed address', () => {
    const parsed = proxyAddr.compile('loopback');
    const trust = load({ TRUST_PROXY: 'loopback' }).trustProxy;
    const addresses = [
      '127.0.0.1',
      '127.255.1.2',
      '126.0.0.1',
      '10.0.0.1',
      '255.255.255.255',
      '0.0.0.0',
      '::1',
      '::2',
      '::ffff:127.0.0.1',
      '::ffff:127.9.9.9',
      '::ffff:10.0.0.1',
      '0:0:0:0:0:0:0:1',
      '0177.0.0.1',
      '127.000.000.001',
      '2001:db8::5',
      'not-an-address',
      '',
    ];
    for (const a of addresses) expect([a, trust(a, 0)]).toEqual([a, parsed(a, 0)]);
  });

  it('false: the header is ignored', () => {
    expect(ip('false', '127.0.0.1', '203.0.113.5')).toBe('127.0.0.1');
  });

  it('a hop count: that many proxies, whatever their addresses', () => {
    expect(ip('1', '10.1.2.3', '1.1.1.1, 203.0.113.5')).toBe('203.0.113.5');
    expect(ip('2', '10.1.2.3', '1.1.1.1, 203.0.113.5, 10.9.9.9')).toBe('203.0.113.5');
    expect(ip('2', '10.1.2.3', '203.0.113.5')).toBe('203.0.113.5');
  });

  it('addresses and CIDR ranges: walked from the nearest hop while trusted', () => {
    const trust = '10.0.0.0/8, 172.16.0.1';
    expect(ip(trust, '10.1.2.3', '203.0.113.5, 172.16.0.1')).toBe('203.0.113.5');
    expect(ip(trust, '10.1.2.3', '1.1.1.1, 203.0.113.5')).toBe('203.0.113.5');
    expect(ip(trust, '198.51.100.7', '203.0.113.5')).toBe('198.51.100.7');
  });
});

const KEY = 'a'.repeat(43);

/** The D35 delivery settings as the environment gives them. */
describe('webhook configuration', () => {
  it('defaults to the published schedule, a 5 s timeout and 10 workers', () => {
    const config = loadConfig({ SECRET_KEY: KEY });
    expect(config.webhookRetrySchedule).toEqual([60, 300, 1800, 7200, 21600, 43200, 86400]);
    expect(config.webhookTimeoutMs).toBe(5000);
    expect(config.webhookWorkers).toBe(10);
  });

  it('reads a schedule of seconds, a timeout and 0 workers (API only)', () => {
    const config = loadConfig({
      SECRET_KEY: KEY,
      WEBHOOK_RETRY_SCHEDULE: '1, 2,3',
      WEBHOOK_TIMEOUT_MS: '1500',
      WEBHOOK_WORKERS: '0',
    });
    expect(config.webhookRetrySchedule).toEqual([1, 2, 3]);
    expect(config.webhookTimeoutMs).toBe(1500);
    expect(config.webhookWorkers).toBe(0);
  });

  it.each([
    ['WEBHOOK_RETRY_SCHEDULE', '60,soon'],
    ['WEBHOOK_RETRY_SCHEDULE', '-1'],
    ['WEBHOOK_RETRY_SCHEDULE', '90000'],
    ['WEBHOOK_TIMEOUT_MS', '0'],
    ['WEBHOOK_WORKERS', '-2'],
  ])('refuses %s=%s by name', (name, value) => {
    expect(() => loadConfig({ SECRET_KEY: KEY, [name]: value })).toThrow(name);
  });
});
