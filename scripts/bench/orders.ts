/**
 * Order writes by concurrency, and the order read, in one run on one database (the write
 * against its baseline, with and without a subscriber, is in writes.ts):
 * - PUT /v1/orders/:id with a new protected order each time at 10, 50 and 200 connections,
 *   beside node:http + one `pg` upsert at 200: throughput should grow with concurrency
 *   (commits run in parallel).
 * - GET /v1/orders/:id against the authenticated GET /v2/settings read.
 */
import { randomBytes } from 'node:crypto';
import { createDb } from '../../server/src/db/database';
import { migrateToLatest } from '../../server/src/db/migrate';
import { freePort } from '../../server/src/free-port';
import { benchInstallation } from './install';
import { benchDatabase, compare, type Measured, printTable, startProcess, startService, stopProcess } from './lib';

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
  try {
    await migrateToLatest(db);
    const plain = await benchInstallation(db, secret, 'orders', ['order:update', 'store:read']);
    const service = await startService(database.url, secret);
    const base = service.base;
    const barePort = await freePort();
    const bare = await startProcess('scripts/bench/serve-upsert.ts', {
      PORT: String(barePort),
      BENCH_DATABASE_URL: database.url,
      BENCH_STORE_ID: plain.store.id,
    });
    const auth = { authorization: `Bearer ${plain.tokenFor(base)}` };
    const body = JSON.stringify(ORDER);
    const rows: Measured[] = [];
    try {
      const put = await fetch(`${base}/v1/orders/bench-probe`, {
        method: 'PUT',
        headers: { ...auth, 'content-type': 'application/json' },
        body,
      });
      if (put.status !== 200) throw new Error(`PUT /v1/orders answered ${put.status}: ${await put.text()}`);
      const write = (name: string, token: string, connections: number, prefix: string) => ({
        name,
        url: `${base}/v1/orders/${prefix}-[<id>]`,
        method: 'PUT' as const,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body,
        idReplacement: true,
        connections,
      });
      const token = plain.tokenFor(base);
      rows.push(
        ...(await compare([
          write('PUT new order, 10 conns', token, 10, 'c10'),
          write('PUT new order, 50 conns', token, 50, 'c50'),
          write('PUT new order, 200 conns', token, 200, 'c200'),
          {
            name: 'node:http + one pg upsert, 200 conns',
            url: `http://127.0.0.1:${barePort}/v1/orders/raw200-[<id>]`,
            method: 'PUT',
            headers: { 'content-type': 'application/json' },
            body,
            idReplacement: true,
            connections: 200,
          },
        ])),
      );
      rows.push(
        ...(await compare([
          { name: 'GET /v1/orders/:id', url: `${base}/v1/orders/bench-probe`, headers: auth },
          { name: 'GET /v2/settings (access token)', url: `${base}/v2/settings`, headers: auth },
        ])),
      );
    } finally {
      await stopProcess(service.child);
      await stopProcess(bare);
    }
    printTable(rows);
    const r = (i: number) => rows[i]!.rps;
    process.stdout.write(
      `PUT order at 10 / 50 / 200 connections: ${r(0).toFixed(0)} / ${r(1).toFixed(0)} / ${r(2).toFixed(0)} req/s (goal: 200 > 50)\n`,
    );
    process.stdout.write(`node:http + upsert at 200 connections: ${r(3).toFixed(0)} req/s\n`);
    process.stdout.write(`GET order / GET settings: ${(r(4) / r(5)).toFixed(2)}\n`);
    return rows;
  } finally {
    await db.destroy();
    await database.stop();
  }
}
