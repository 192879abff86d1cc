import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WebhookBodies, WebhookTopic } from '@protection-service/contract';
import type { Db } from '../../src/db/database';
import { transact } from '../../src/db/transact';
import { type RecordedEvent, recordEvent } from '../../src/domain/webhooks/record';
import { type ServiceProcess, startServiceProcess } from './processes';
import { startTestServer, type TestServer } from './server';

/** One request a receiver got. */
export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body, exactly as sent. */
  raw: string;
  at: number;
}

export type Responder = (req: Received, res: ServerResponse) => void;

/** A webhook receiver of the test's own on loopback; each path may answer its own way. */
export interface Receiver {
  url: string;
  received: Received[];
  /** Requests to `path` (`/hook/a`). */
  at(path: string): Received[];
  /** How `path` answers from now on (default: 200 `ok`). */
  respond(path: string, responder: Responder): void;
  close(): Promise<void>;
}

export const answer =
  (status: number, body = '', headers: Record<string, string> = {}): Responder =>
  (_req, res) => {
    res.writeHead(status, headers);
    res.end(body);
  };

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const responders = new Map<string, Responder>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry = {
        path: req.url ?? '',
        headers: req.headers,
        raw: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      received.push(entry);
      (responders.get(entry.path) ?? answer(200, 'ok'))(entry, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    at: (path) => received.filter((r) => r.path === path),
    respond: (path, responder) => void responders.set(path, responder),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * A delivering process (`pnpm worker`, or `pnpm start` with `entry: 'main'`) on a test
 * database, with the delivery settings the webhook tests use (1 s retry steps, loopback
 * receivers allowed) under `env`.
 */
export function startDeliveryProcess(options: {
  databaseUrl: string;
  secretKey: Buffer;
  env?: NodeJS.ProcessEnv;
  entry?: 'worker' | 'main';
  port?: number;
}): Promise<ServiceProcess> {
  return startServiceProcess({
    ...options,
    entry: options.entry ?? 'worker',
    env: {
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_WORKERS: '4',
      WEBHOOK_TIMEOUT_MS: '1000',
      WEBHOOK_RETRY_SCHEDULE: '1,1,1',
      ...options.env,
    },
  });
}

/** Records an event in a transaction of its own, as a committed change would. */
export function record<T extends WebhookTopic>(
  db: Db,
  storeId: string,
  topic: T,
  body: WebhookBodies[T],
): Promise<RecordedEvent> {
  return transact(db, (trx) => recordEvent(trx, { storeId, topic, body }));
}

export const deniedBody = (storeId: string, claimId = 'cl_1'): WebhookBodies['claim/denied'] => ({
  claimId,
  storeId,
  sourceOrderId: 'o-1',
  reason: 'OTHER',
});

/** The base64 HMAC-SHA256 a receiver computes over a delivery with `secret` (D32). */
export function signatureOf(secret: string, r: Pick<Received, 'headers' | 'raw'>): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(`${r.headers['x-webhook-id']}.${r.headers['x-webhook-timestamp']}.${r.raw}`)
    .digest('base64');
}

/** An API server (in process), a receiver and a delivering `pnpm worker` process on one database. */
export interface DeliveryRig {
  server: TestServer;
  receiver: Receiver;
  worker: ServiceProcess;
  secretKey: Buffer;
  close(): Promise<void>;
}

export async function startDeliveryRig(): Promise<DeliveryRig> {
  const secretKey = randomBytes(32);
  const server = await startTestServer({ secretKey });
  const receiver = await startReceiver();
  const worker = await startDeliveryProcess({ databaseUrl: server.databaseUrl, secretKey });
  return {
    server,
    receiver,
    worker,
    secretKey,
    async close() {
      await worker.stop();
      await receiver.close();
      await server.close();
    },
  };
}
