/**
 * Order writes and reads, in one run on one database:
 * - PUT /v1/orders/:id with a new protected order each time (the order row, a policy and a
 *   protection/added event with its fan-out, in one transaction; D18, D19, D32) against a
 *   raw `pg` upsert of the same order row from a plain Node loop with the same concurrency
 *   and the server's pool size. Goal: at least 0.5 of the loop's requests/second.
 * - GET /v1/orders/:id against the authenticated GET /v2/settings read.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createDb } from '../../server/src/db/database';
import { migrateToLatest } from '../../server/src/db/migrate';
import { newId } from '../../server/src/lib/ids';
import { benchInstallation } from './install';
import {
  benchDatabase,
  CONNECTIONS,
  compare,
  type LoopTarget,
  loop,
  type Measured,
  printTable,
  startService,
  stopProcess,
} from './lib';

/** The server's pool size (server/src/db/database.ts): the loop gets as many connections. */
const POOL_SIZE = 10;

const ORDER = {
  sourceOrderNumber: '#1001',
  currency: 'USD',
  platformId: 'shopify',
  total: 120.5,
  subtotal: 100,
  tax: 8,
  shippingCost: 12.5,
  premiumPaid: 2.95,
  customerEmail: 'shopper@example.com',
  customerName: 'Ann Shopper',
  sourceCreatedAt: '2026-01-31T12:00:00.000Z',
};

export async function benchOrders(): Promise<Measured[]> {
  const database = await benchDatabase();
  const db = createDb(database.url);
  const secret = randomBytes(32);
  const raw = new pg.Pool({ connectionString: database.url, max: POOL_SIZE });
  try {
    await migrateToLatest(db);
    const stamp = Date.now();
    // Subscribed to the protection topics, so every event also fans out one delivery (D35).
    const installed = await benchInstallation(db, secret, 'orders', ['order:update', 'store:read'], {
      webhookUrl: 'https://bench.example.com/hook',
      webhookTopics: ['protection/added', 'protection/removed'],
    });
    const store = installed.store;
    const service = await startService(database.url, secret);
    const server = service.child;
    const base = service.base;
    const token = installed.tokenFor(base);
    const auth = { authorization: `Bearer ${token}` };
    const rows: Measured[] = [];
    try {
      const body = JSON.stringify(ORDER);
      const put = await fetch(`${base}/v1/orders/bench-probe`, {
        method: 'PUT',
        headers: { ...auth, 'content-type': 'application/json' },
        body,
      });
      if (put.status !== 200) throw new Error(`PUT /v1/orders answered ${put.status}: ${await put.text()}`);
      const events = await db.selectFrom('webhookEvents').select('topic').execute();
      if (events.length !== 1) throw new Error(`expected one protection/added event, found ${events.length}`);

      let n = 0;
      const rawUpsert: LoopTarget = {
        name: 'raw pg upsert of the order row (Node loop)',
        run: (seconds) =>
          loop(CONNECTIONS, seconds, async () => {
            await raw.query(
              `insert into orders (id, store_id, source_order_id, source_order_number, currency, source_created_at,
                 platform_id, premium_paid, total, subtotal, tax, shipping_cost, customer_email, customer_name)
               values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
               on conflict (store_id, source_order_id) where deleted_at is null do update set
                 source_order_number = excluded.source_order_number, currency = excluded.currency,
                 source_created_at = excluded.source_created_at, platform_id = excluded.platform_id,
                 premium_paid = excluded.premium_paid, total = excluded.total, subtotal = excluded.subtotal,
                 tax = excluded.tax, shipping_cost = excluded.shipping_cost,
                 customer_email = excluded.customer_email, customer_name = excluded.customer_name,
                 updated_at = now()`,
              [
                newId('ord'),
                store.id,
                `raw-${stamp}-${n++}`,
                ORDER.sourceOrderNumber,
                ORDER.currency,
                ORDER.sourceCreatedAt,
                ORDER.platformId,
                ORDER.premiumPaid,
                ORDER.total,
                ORDER.subtotal,
                ORDER.tax,
                ORDER.shippingCost,
                ORDER.customerEmail,
                ORDER.customerName,
              ],
            );
          }),
      };
      rows.push(
        ...(await compare([
          {
            name: 'PUT /v1/orders/:id (new protected order)',
            url: `${base}/v1/orders/bench-[<id>]`,
            method: 'PUT',
            headers: { ...auth, 'content-type': 'application/json' },
            body,
            idReplacement: true,
          },
          rawUpsert,
        ])),
      );
      rows.push(
        ...(await compare([
          { name: 'GET /v1/orders/:id', url: `${base}/v1/orders/bench-probe`, headers: auth },
          { name: 'GET /v2/settings (access token)', url: `${base}/v2/settings`, headers: auth },
        ])),
      );
    } finally {
      await stopProcess(server);
    }
    printTable(rows);
    const ratio = rows[0]!.rps / rows[1]!.rps;
    process.stdout.write(`PUT order / raw upsert: ${ratio.toFixed(2)} (goal >= 0.5)\n`);
    process.stdout.write(`GET order / GET settings: ${(rows[2]!.rps / rows[3]!.rps).toFixed(2)}\n`);
    return rows;
  } finally {
    await raw.end();
    await db.destroy();
    await database.stop();
  }
}
