import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import type { MailSettings } from '../../src/domain/mail/settings';
import { type Delivery, startDelivery } from '../../src/job-runner';
import { createLogger } from '../../src/logger';
import type { TestServer } from './server';

/** One message an SMTP sink accepted. */
export interface Arrived {
  /** The user the client signed in as, when it did. */
  user: string | undefined;
  envelopeFrom: string;
  envelopeTo: string[];
  mail: ParsedMail;
}

/**
 * A real SMTP server (smtp-server) on loopback in the test process. It accepts every message
 * (`mode: 'accept'`) or answers every recipient 550 (`'refuse'`); `stop` closes the port (a
 * server that is down) and `start` listens on it again.
 */
export interface SmtpSink {
  url: string;
  arrived: Arrived[];
  /** Messages accepted for this recipient. */
  to(address: string): Arrived[];
  mode: 'accept' | 'refuse';
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function startSmtpSink(): Promise<SmtpSink> {
  const arrived: Arrived[] = [];
  let server: SMTPServer | undefined;
  let port = 0;
  const sink: SmtpSink = {
    url: '',
    arrived,
    to: (address) => arrived.filter((a) => a.envelopeTo.includes(address)),
    mode: 'accept',
    async start() {
      const smtp = new SMTPServer({
        authOptional: true,
        // Credentials in SMTP_URL sign in over plain text on loopback; any password is taken.
        allowInsecureAuth: true,
        onAuth(auth, _session, callback) {
          callback(null, { user: auth.username });
        },
        disabledCommands: ['STARTTLS'],
        logger: false,
        onRcptTo(_address, _session, callback) {
          if (sink.mode === 'accept') return callback();
          const refusal = new Error('mailbox unavailable') as Error & { responseCode: number };
          refusal.responseCode = 550;
          callback(refusal);
        },
        onData(stream, session, callback) {
          simpleParser(stream)
            .then((mail) => {
              arrived.push({
                user: session.user === undefined ? undefined : String(session.user),
                envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
                envelopeTo: session.envelope.rcptTo.map((r) => r.address),
                mail,
              });
              callback();
            })
            .catch(callback);
        },
      });
      await new Promise<void>((resolve) => smtp.listen(port, '127.0.0.1', () => resolve()));
      port = (smtp.server.address() as AddressInfo).port;
      sink.url = `smtp://127.0.0.1:${port}`;
      server = smtp;
    },
    async stop() {
      const smtp = server;
      server = undefined;
      if (smtp) await new Promise<void>((resolve) => smtp.close(() => resolve()));
    },
    close: () => sink.stop(),
  };
  await sink.start();
  return sink;
}

/** Log lines a delivering process wrote, as text. */
export interface CapturedLogs {
  lines: string[];
  text(): string;
}

/**
 * The delivering side of the queue (webhooks and mail) in the test process, on the test
 * server's database, with the mail settings given; its log lines are captured.
 */
export async function startMailRunner(
  server: TestServer,
  mail: Partial<MailSettings>,
): Promise<{ delivery: Delivery; logs: CapturedLogs }> {
  const lines: string[] = [];
  const logger = createLogger('info', { write: (line: string) => void lines.push(line) });
  const delivery = await startDelivery({
    config: { ...server.config, webhookWorkers: 2, ...mail },
    logger,
    connectionString: server.databaseUrl,
  });
  return { delivery, logs: { lines, text: () => lines.join('') } };
}

/** The mail rows of one claim, oldest first. */
export const mailOf = (server: TestServer, claimId: string) =>
  server.db
    .selectFrom('mailMessages')
    .selectAll()
    .where('claimId', '=', claimId)
    .orderBy('createdAt')
    .orderBy('kind')
    .execute();
