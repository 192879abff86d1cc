/**
 * D48: the order write and claim filing through PgBouncer in transaction mode
 * (DATABASE_POOLER=transaction: unnamed statements, the claim filing's statements one by one)
 * against the same service connected directly (DATABASE_POOLER=none), in one run on one
 * database, in alternating rounds.
 */
import { randomBytes } from 'node:crypto';
import { createDb } from '../../server/src/db/database';
import { migrateToLatest } from '../../server/src/db/migrate';
import { startPgBouncer } from '../../server/test/harness/pgbouncer';
import { benchInstallation } from './install';
import { benchDatabase, compare, type Measured, printTable, startService, stopProcess } from './lib';

const ORDER = JSON.stringify({
  sourceOrderNumber: '#1001',
  currency: 'USD',
  platformId: 'shopify',
  total: 120.5,
  sourceCreatedAt: '2026-01-31T12:00:00.000Z',
});
const CLAIM = JSON.stringify({
  email: 'shopper@example.com',
  salesChannel: 'ONLINE',
  claimCategory: 'SHIPPING',
  fulfillmentIssues: [{ issues: [{ issueType: 'DAMAGED', quantity: 1 }] }],
  resolution: { desiredMethod: 'RESHIP' },
});

export async function benchPooler(): Promise<Measured[]> {
  const database = await benchDatabase();
  const db = createDb(database.url);
  const secret = randomBytes(32);
  // As hosted poolers are sized: fewer server connections than the service's pool.
  const bouncer = await startPgBouncer(database.url, { poolSize: 10 });
  try {
    await migrateToLatest(db);
    const install = await benchInstallation(db, secret, 'pooler', ['order:update', 'claim:manage', 'store:read']);
    const direct = await startService(database.url, secret);
    const pooled = await startService(bouncer.url(database.url), secret, {
      BENCH_DATABASE_POOLER: 'transaction',
      BENCH_DATABASE_DIRECT_URL: database.url,
    });
    const rows: Measured[] = [];
    try {
      const json = (base: string) => ({
        authorization: `Bearer ${install.tokenFor(base)}`,
        'content-type': 'application/json',
      });
      for (const { base } of [direct, pooled]) {
        const put = await fetch(`${base}/v1/orders/bench-claimed`, { method: 'PUT', headers: json(base), body: ORDER });
        if (put.status !== 200) throw new Error(`PUT /v1/orders answered ${put.status}: ${await put.text()}`);
        const filed = await fetch(`${base}/v1/claims/bench-claimed`, {
          method: 'POST',
          headers: json(base),
          body: CLAIM,
        });
        if (filed.status !== 200) throw new Error(`filing answered ${filed.status}: ${await filed.text()}`);
      }
      const write = (name: string, base: string, prefix: string) => ({
        name,
        url: `${base}/v1/orders/${prefix}-[<id>]`,
        method: 'PUT' as const,
        headers: json(base),
        body: ORDER,
        idReplacement: true,
      });
      const file = (name: string, base: string) => ({
        name,
        url: `${base}/v1/claims/bench-claimed`,
        method: 'POST' as const,
        headers: json(base),
        body: CLAIM,
      });
      rows.push(
        ...(await compare([
          write('PUT new order, direct (none)', direct.base, 'd'),
          write('PUT new order, PgBouncer (transaction)', pooled.base, 'p'),
          file('POST claim filing, direct (none)', direct.base),
          file('POST claim filing, PgBouncer (transaction)', pooled.base),
        ])),
      );
    } finally {
      await stopProcess(direct.child);
      await stopProcess(pooled.child);
    }
    printTable(rows);
    const ratio = (a: Measured, b: Measured) => (b.rps / a.rps).toFixed(2);
    process.stdout.write(`order write, transaction / none: ${ratio(rows[0]!, rows[1]!)} of the requests/second\n`);
    process.stdout.write(`claim filing, transaction / none: ${ratio(rows[2]!, rows[3]!)} of the requests/second\n`);
    return rows;
  } finally {
    await db.destroy();
    await bouncer.stop();
    await database.stop();
  }
}
