import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordEvent } from '../../src/domain/webhooks/record';
import { freePort } from '../../src/free-port';
import { createApp, createOwner, installWithToken } from '../harness/fixtures';
import type { ServiceProcess } from '../harness/processes';
import { startTestServer, type TestServer } from '../harness/server';
import { answer, deniedBody, type Receiver, record, startDeliveryProcess, startReceiver } from '../harness/webhooks';

/**
 * Crash safety (D32): two server processes deliver about 150 events to a receiver that fails
 * about a third of the attempts; one is SIGKILLed mid-run and a new one started. Every committed
 * event arrives at least once, nothing arrives that was not committed, and duplicates carry
 * identical bodies. Attempts the killed process had in flight are made again once their lease
 * (twice WEBHOOK_TIMEOUT_MS + 3 s) expires.
 */
describe('webhook delivery across a SIGKILL', () => {
  const EVENTS = 150;
  let server: TestServer;
  let receiver: Receiver;
  const processes: ServiceProcess[] = [];
  const secretKey = randomBytes(32);

  const start = async () => {
    const p = await startDeliveryProcess({
      databaseUrl: server.databaseUrl,
      secretKey,
      entry: 'main',
      port: await freePort(),
      env: { WEBHOOK_WORKERS: '4', WEBHOOK_TIMEOUT_MS: '2000', WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1,1' },
    });
    processes.push(p);
    return p;
  };

  beforeAll(async () => {
    // The API process of the test is API-only (WEBHOOK_WORKERS=0); the spawned ones deliver.
    server = await startTestServer({ secretKey });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    for (const p of processes) await p.stop();
    await receiver?.close();
    await server?.close();
  });

  it('delivers every committed event at least once, and nothing else', { timeout: 240_000 }, async () => {
    const owner = await createOwner(server.db, 'crash');
    const app = await createApp(server, owner.user.id, {
      webhookUrl: `${receiver.url}/crash`,
      webhookTopics: ['claim/denied'],
    });
    await installWithToken(server, app.clientId, owner.store.id, ['order:read']);

    // Answers after 50-250 ms, so attempts are in flight when the kill lands; about a third
    // fail with a 500 (never an event's third attempt, so every event ends delivered).
    const attemptsById = new Map<string, number>();
    const accepted = new Map<string, number>();
    receiver.respond('/crash', (req, res) => {
      const id = String(req.headers['x-webhook-id']);
      const n = (attemptsById.get(id) ?? 0) + 1;
      attemptsById.set(id, n);
      const fail = n < 3 && Math.random() < 1 / 3;
      setTimeout(
        () => {
          if (!fail) accepted.set(id, (accepted.get(id) ?? 0) + 1);
          answer(fail ? 500 : 200)(req, res);
        },
        50 + Math.random() * 200,
      );
    });

    const first = await start();
    await start();

    const committed = new Set<string>();
    const rolledBack = new Set<string>();
    for (let i = 0; i < EVENTS; i++) {
      committed.add(
        (await record(server.db, owner.store.id, 'claim/denied', deniedBody(owner.store.id, `cl_${i}`))).id,
      );
      if (i % 10 === 0) {
        await server.db
          .transaction()
          .execute(async (trx) => {
            const event = await recordEvent(trx, {
              storeId: owner.store.id,
              topic: 'claim/denied',
              body: deniedBody(owner.store.id, `cl_rb_${i}`),
            });
            rolledBack.add(event.id);
            throw new Error('rolled back');
          })
          .catch(() => {});
      }
      // The kill lands while deliveries are in full flow.
      if (i === 60) {
        await expect.poll(() => receiver.at('/crash').length, { timeout: 60_000 }).toBeGreaterThanOrEqual(40);
        await first.crash();
        await start();
      }
    }

    await expect
      .poll(
        async () => {
          const row = await server.db
            .selectFrom('webhookDeliveries')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('clientId', '=', app.clientId)
            .where('status', '=', 'delivered')
            .executeTakeFirstOrThrow();
          return Number(row.n);
        },
        { timeout: 180_000, interval: 250 },
      )
      .toBe(EVENTS);

    const got = receiver.at('/crash');
    const bodies = new Map<string, Set<string>>();
    for (const r of got) {
      const id = String(r.headers['x-webhook-id']);
      bodies.set(id, (bodies.get(id) ?? new Set()).add(r.raw));
    }
    // Nothing that was not committed, and every committed event accepted at least once.
    for (const id of bodies.keys()) expect(committed.has(id)).toBe(true);
    for (const id of rolledBack) expect(bodies.has(id)).toBe(false);
    for (const id of committed) expect(accepted.has(id)).toBe(true);
    // Every copy of an event carries the same bytes.
    for (const copies of bodies.values()) expect(copies.size).toBe(1);

    const answered500 = got.length - [...accepted.values()].reduce((a, b) => a + b, 0);
    // A duplicate: an event accepted (2xx) more than once, as when a process dies after the
    // receiver answered but before the outcome was recorded.
    const duplicates = [...accepted.values()].reduce((sum, n) => sum + n - 1, 0);
    const swept = processes
      .map((p) => p.output())
      .join('')
      .split('\n')
      .filter((line) => line.includes('attempts re-queued'))
      .reduce((sum, line) => sum + (JSON.parse(line) as { deliveries: number }).deliveries, 0);
    // The killed process had attempts in flight (4 workers, answers take 50-250 ms, a backlog
    // behind them): their leases expired and were swept, and the events still arrived above.
    expect(swept).toBeGreaterThan(0);
    process.stdout.write(
      `[crash] ${EVENTS} events committed, ${rolledBack.size} rolled back; ${got.length} requests ` +
        `(${answered500} answered 500); ${duplicates} duplicates (an event accepted twice); ` +
        `${swept} expired leases re-queued after the SIGKILL\n`,
    );
  });
});
