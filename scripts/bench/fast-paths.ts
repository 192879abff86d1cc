/**
 * What each device of server/src/runtime/ buys, in one run: the service with every device on
 * against the same service with that one device off (`FAST_PATHS=off:<device>`), in
 * alternating rounds, on the requests the device is for; then every device on against all off
 * (`FAST_PATHS=off`, the stock libraries alone). The ratio is requests/second with the device
 * on over off. BENCH_FAST_PATHS names the devices to measure (default all).
 */
import { randomBytes } from 'node:crypto';
import { createDb, type Db } from '../../server/src/db/database';
import { migrateToLatest } from '../../server/src/db/migrate';
import { freePort } from '../../server/src/free-port';
import { benchInstallation } from './install';
import { benchDatabase, compare, type Measured, printTable, startService, stopProcess, type Target } from './lib';
import { CLAIM, cloneOrders, ORDER, ORDER_WITH_ITEM, QUOTE } from './writes';

type Workload = 'public read' | 'authenticated read' | 'quote' | 'order write' | 'order update' | 'claim filing';

/** The requests each device is on the path of. */
const DEVICES: [device: string, workloads: Workload[]][] = [
  ['prebuilt-messages', ['public read', 'authenticated read']],
  ['answer-first', ['public read']],
  ['lean-json', ['authenticated read']],
  ['compiled-schema', ['quote']],
  ['named-statements', ['order write', 'claim filing']],
  ['held-begin', ['order update']],
  ['one-trip', ['claim filing']],
  ['one-pass-raw', ['order write']],
];
const ALL: Workload[] = ['public read', 'authenticated read', 'quote', 'order write', 'order update', 'claim filing'];
/** Orders ready for claims, per service started: more than one side files in its rounds. */
const FRESH_ORDERS = Number(process.env.BENCH_FRESH_ORDERS ?? 20_000);
/** Existing orders the update rows write again, in turn. */
const UPDATED_ORDERS = 500;

const only = process.env.BENCH_FAST_PATHS?.split(',').map((d) => d.trim());

export async function benchFastPaths(): Promise<Measured[]> {
  const database = await benchDatabase();
  const db = createDb(database.url);
  const secret = randomBytes(32);
  const issuer = `http://127.0.0.1:${await freePort()}`;
  const rows: Measured[] = [];
  await migrateToLatest(db);
  const on = await startService(database.url, secret, { BENCH_ISSUER: issuer });
  try {
    const installed = await benchInstallation(db, secret, 'fast-paths', [
      'order:update',
      'claim:manage',
      'quote:read',
      'store:read',
    ]);
    const headers = { authorization: `Bearer ${installed.tokenFor(issuer)}`, 'content-type': 'application/json' };
    const send = async (url: string, method: string, body: unknown, expected: number) => {
      const res = await fetch(url, { method, headers, body: JSON.stringify(body) });
      if (res.status !== expected) throw new Error(`${method} ${url} answered ${res.status}: ${await res.text()}`);
    };
    for (let i = 0; i < UPDATED_ORDERS; i++) await send(`${on.base}/v1/orders/upd-${i}`, 'PUT', ORDER, 200);
    await send(`${on.base}/v1/orders/claim-template`, 'PUT', ORDER_WITH_ITEM, 200);
    const template = await db
      .selectFrom('orders')
      .select('id')
      .where('sourceOrderId', '=', 'claim-template')
      .executeTakeFirstOrThrow();
    const domain = (
      await db.selectFrom('stores').select('domain').where('id', '=', installed.store.id).executeTakeFirstOrThrow()
    ).domain;
    const setup: Setup = { db, headers, domain, templateId: template.id };
    const measure = async (off: string, workloads: Workload[]) => {
      const service = await startService(database.url, secret, { BENCH_ISSUER: issuer, FAST_PATHS: off });
      try {
        for (const workload of workloads) {
          const [a, b] = await compare([
            await target(setup, workload, on.base, 'on'),
            await target(setup, workload, service.base, off),
          ]);
          printTable([a!, b!]);
          process.stdout.write(
            `${off === 'off' ? 'all devices' : off.slice(4)} on / off, ${workload}: ${(a!.rps / b!.rps).toFixed(2)}\n`,
          );
          rows.push(a!, b!);
        }
      } finally {
        await stopProcess(service.child);
      }
    };
    for (const [device, workloads] of DEVICES) {
      if (only && !only.includes(device)) continue;
      process.stdout.write(`\n## ${device}\n`);
      await measure(`off:${device}`, workloads);
    }
    if (!only || only.includes('all')) {
      process.stdout.write('\n## every device (FAST_PATHS=off: the stock libraries alone)\n');
      await measure('off', ALL);
    }
    return rows;
  } finally {
    await stopProcess(on.child);
    await db.destroy();
    await database.stop();
  }
}

/** What the workloads' requests are made from. */
interface Setup {
  db: Db;
  headers: Record<string, string>;
  /** The store's domain, for the shopper read. */
  domain: string;
  /** The order cloned for claim filings. */
  templateId: string;
}

let sides = 0;

/** The request of a workload against one service; each target's new rows are its own (`side`). */
async function target(setup: Setup, workload: Workload, base: string, label: string): Promise<Target> {
  const { db, headers, domain, templateId } = setup;
  const side = `s${sides++}`;
  const name = `${workload}, ${label}`;
  const body = (value: unknown) => JSON.stringify(value);
  switch (workload) {
    case 'public read':
      return { name, url: `${base}/v1/quote/insurance?store_url=${domain}&subtotal=120` };
    case 'authenticated read':
      return { name, url: `${base}/v2/settings`, headers };
    case 'quote':
      return { name, url: `${base}/v2/quote`, method: 'POST', headers, body: body(QUOTE) };
    case 'order write':
      return {
        name,
        url: `${base}/v1/orders/${side}-[<id>]`,
        method: 'PUT',
        headers,
        body: body(ORDER),
        idReplacement: true,
      };
    case 'order update':
      return {
        name,
        url: `${base}/v1/orders/upd-0`,
        method: 'PUT',
        headers,
        body: body({ ...ORDER, tax: 9 }),
        path: (n) => `/v1/orders/upd-${n % UPDATED_ORDERS}`,
      };
    case 'claim filing':
      await cloneOrders(db, templateId, side, FRESH_ORDERS);
      return {
        name,
        url: `${base}/v1/claims/x`,
        method: 'POST',
        headers,
        body: body(CLAIM),
        path: (n) => `/v1/claims/${side}-${n}`,
      };
  }
}
