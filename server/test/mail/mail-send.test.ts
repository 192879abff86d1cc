import type { AddressInfo } from 'node:net';
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { mailRetryDelay } from '../../src/domain/mail/deliver';
import { escapeHtml, renderMail } from '../../src/domain/mail/render';
import { acceptableAddress, createMailer, type Outgoing } from '../../src/domain/mail/send';
import type { MailSettings } from '../../src/domain/mail/settings';
import { type SmtpSink, startSmtpSink } from '../harness/mail';

const KEY = 'a'.repeat(43);

/** SMTP_URL, MAIL_FROM and MAIL_RETRY_SCHEDULE, checked when the process starts (D42). */
describe('mail configuration (D42)', () => {
  it('defaults: no SMTP server, the published schedule', () => {
    const config = loadConfig({ SECRET_KEY: KEY, DATABASE_URL: 'postgres://db/x' });
    expect(config.smtpUrl).toBeUndefined();
    expect(config.mailRetrySchedule).toEqual([30, 120, 600, 3600, 21600]);
  });

  it('reads an SMTP URL with credentials, a sender and a schedule; an empty value is unset', () => {
    const config = loadConfig({
      SECRET_KEY: KEY,
      SMTP_URL: 'smtps://user:secret@relay.example.com:465',
      MAIL_FROM: 'claims@shop.example',
      MAIL_RETRY_SCHEDULE: '5, 10,20',
    });
    expect(config).toMatchObject({
      smtpUrl: 'smtps://user:secret@relay.example.com:465',
      mailFrom: 'claims@shop.example',
      mailRetrySchedule: [5, 10, 20],
    });
    expect(loadConfig({ SECRET_KEY: KEY, SMTP_URL: '', MAIL_FROM: '' }).smtpUrl).toBeUndefined();
  });

  it.each([
    ['SMTP_URL', { SMTP_URL: 'http://relay.example.com', MAIL_FROM: 'a@example.com' }],
    ['SMTP_URL', { SMTP_URL: 'not a url', MAIL_FROM: 'a@example.com' }],
    ['MAIL_FROM', { SMTP_URL: 'smtp://relay.example.com:25' }],
    ['MAIL_FROM', { MAIL_FROM: 'not an address' }],
    ['MAIL_RETRY_SCHEDULE', { MAIL_RETRY_SCHEDULE: '30,later' }],
    ['MAIL_RETRY_SCHEDULE', { MAIL_RETRY_SCHEDULE: '-5' }],
  ])('refuses a bad %s by name, without repeating its value', (name, env) => {
    let message = '';
    try {
      loadConfig({ SECRET_KEY: KEY, ...env });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain(name);
    expect(message).not.toContain('relay.example.com');
  });

  it('the schedule: one step per retry, then none', () => {
    expect([1, 2, 3].map((attempts) => mailRetryDelay([30, 120], attempts))).toEqual([30, 120, null]);
  });
});

/** What the mail library makes of addresses and of servers that misbehave. */
describe('the mailer (D42)', () => {
  let sink: SmtpSink;
  const servers: Server[] = [];
  const sockets: Socket[] = [];
  const settings = (smtpUrl: string, mailTimeoutMs = 5000): MailSettings => ({
    smtpUrl,
    mailFrom: 'claims@shop.test',
    mailRetrySchedule: [1],
    mailTimeoutMs,
    mailDir: undefined,
    publicBaseUrl: 'http://localhost',
    secretKey: Buffer.alloc(32),
  });
  const message = (recipient: string): Outgoing => ({
    id: 'mail_test',
    storeName: 'Shop',
    recipient,
    ...renderMail({
      kind: 'claim_filed',
      storeName: 'Shop',
      sourceOrderNumber: '#1',
      claimUrl: 'http://localhost/v1/claims/c1',
      denyReason: null,
      credit: null,
    }),
  });
  /** A TCP server that treats each connection as `onConnection` says. */
  async function tcp(onConnection: (socket: Socket) => void): Promise<string> {
    const server = createServer((socket) => {
      sockets.push(socket);
      onConnection(socket);
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `smtp://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  beforeAll(async () => {
    sink = await startSmtpSink();
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    for (const server of servers) server.close();
    await sink?.close();
  });

  it('takes one plain address only', () => {
    expect(acceptableAddress('shopper@example.com')).toBe(true);
    for (const bad of [
      '',
      'shopper',
      'a@b@c',
      'Name <a@example.com>',
      'a@example.com, b@example.com',
      'a@x\r\nBcc: b@y',
    ]) {
      expect(acceptableAddress(bad)).toBe(false);
    }
  });

  it('an address it refuses is refused without a connection', async () => {
    const mailer = createMailer(settings(sink.url));
    const result = await mailer.send(message('not an address'));
    expect(result).toEqual({ outcome: 'refused', error: 'the mail library refuses the address' });
    expect(sink.arrived).toHaveLength(0);
    expect((await mailer.send(message('ok@example.com'))).outcome).toBe('sent');
    mailer.close();
  });

  it('a dropped connection is a failure to retry', async () => {
    const url = await tcp((socket) => socket.destroy());
    const result = await createMailer(settings(url)).send(message('ok@example.com'));
    expect(result.outcome).toBe('failed');
  });

  it('a server that drops the connection in the middle of the message is a failure to retry', async () => {
    const url = await tcp((socket) => {
      socket.write('220 test ESMTP\r\n');
      socket.on('data', (chunk) => {
        const line = chunk.toString();
        if (line.startsWith('EHLO')) socket.write('250-test\r\n250 8BITMIME\r\n');
        else if (line.startsWith('MAIL') || line.startsWith('RCPT')) socket.write('250 OK\r\n');
        else if (line.startsWith('DATA')) socket.write('354 go on\r\n');
        else socket.destroy();
      });
    });
    const result = await createMailer(settings(url)).send(message('ok@example.com'));
    expect(result.outcome).toBe('failed');
  });

  it('a server that never answers times out, a failure to retry', async () => {
    const url = await tcp(() => {});
    const started = Date.now();
    const result = await createMailer(settings(url, 300)).send(message('ok@example.com'));
    expect(result.outcome).toBe('failed');
    expect('error' in result && result.error).toMatch(/ETIMEDOUT|timeout/i);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('an error never carries the address', async () => {
    sink.mode = 'refuse';
    try {
      const result = await createMailer(settings(sink.url)).send(message('ok@example.com'));
      expect(result.outcome).toBe('failed');
      expect('error' in result && result.error).not.toContain('ok@example.com');
    } finally {
      sink.mode = 'accept';
    }
  });

  it('escapes &, <, >, " and \' for HTML', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&#60;a href=&#34;x&#34;&#62;&#39;&#38;&#39;&#60;/a&#62;');
  });
});
