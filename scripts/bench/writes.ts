/**
 * The write paths and the quote at the cost of their work, each against its baseline in
 * alternating rounds, on a PostgreSQL that waits for the disk and on one that does not
 * (`BENCH_FSYNC`, lib.ts), one database each:
 * - PUT /v1/orders/:id, a new protected order each time (order, line item, policy,
 *   protection/added event; D18, D19, D32), against node:http + one `pg` upsert of the order
 *   row (serve-upsert.ts). Goal: at least 0.5.
 * - The same write for a store with an app subscribed to protection/added (its delivery row,
 *   its job queued after commit) against a store without one. Goal: at least 0.9. The service
 *   runs no delivery worker (WEBHOOK_WORKERS=0): the deliveries queued here wait, and do not
 *   take CPU from the rounds that follow (webhooks.ts measures delivering them).
 * - The same write without Api-Version, with `Api-Version: <latest>`, and on 2025-01-01 (D44):
 *   the dated versions should cost the latest nothing measurable.
 * - POST /v2/quote with 50 line items against node:http checking the body by hand and pricing
 *   it with the same engine (serve-quote-hand.ts). Goal: at least 0.5.
 * - POST /v1/claims/:sourceOrderId, one item of a fresh order each time (D22, D23, D39, D42),
 *   against node:http locking the order row and inserting the claim in one transaction
 *   (serve-claim-txn.ts). Goal: at least 0.4.
 * BENCH_PG_STATS=1 prints the statements each service write ran per request, BENCH_WAL=1 the
 * WAL each row's rounds wrote per request by record type (lib.ts); BENCH_WRITES
 * names the rows to run (`order,subscriber,versions,quote,claim`, default all).
 */
import { randomBytes } from 'node:crypto';
import { LATEST_API_VERSION } from '@protection-service/contract';
import { sql } from 'kysely';
import { createDb, type Db } from '../../server/src/db/database';
import { migrateToLatest } from '../../server/src/db/migrate';
import { freePort } from '../../server/src/free-port';
import { type CpuMeters, ownCpu, postgresCpu, processCpu } from './cpu';
import { committedRatio, type GuardedRow, type Ratios } from './figures';
import { benchInstallation } from './install';
import {
  compare,
  type Fsync,
  fsyncDatabase,
  type Measured,
  onEachFsync,
  printStatements,
  printTable,
  resetStatements,
  startProcess,
  startService,
  stopProcess,
  type Target,
} from './lib';

export const ORDER = {
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
export const ORDER_WITH_ITEM = {
  ...ORDER,
  lineItems: [{ sourceItemId: 'li-1', name: 'Blue mug', quantity: 2, price: 50, isShippable: true }],
};
export const CLAIM = {
  email: 'shopper@example.com',
  salesChannel: 'ONLINE',
  claimCategory: 'SHIPPING',
  fulfillmentIssues: [{ issues: [{ sourceItemId: 'li-1', issueType: 'DAMAGED', quantity: 1 }] }],
  resolution: { desiredMethod: 'RESHIP' },
};
export const QUOTE = {
  currency: 'USD',
  lineItems: Array.from({ length: 50 }, (_, i) => ({
    id: `li-${i}`,
    price: 10 + i * 1.25,
    quantity: 1 + (i % 3),
    isShippable: i % 7 !== 0,
  })),
};
/** The rows BENCH_WRITES names, or all. */
const ROWS = process.env.BENCH_WRITES?.split(',').map((r) => r.trim());

/** Orders made ready for claims, per side: more than either side files in its rounds. */
const FRESH_ORDERS = Number(process.env.BENCH_FRESH_ORDERS ?? 60_000);

/**
 * `count` copies of the order `template` (its line items and policy with it), as
 * `<prefix>-0` ... `<prefix>-<count - 1>`, written in SQL: each claim then files against an
 * order of its own.
 */
export async function cloneOrders(db: Db, templateId: string, prefix: string, count: number): Promise<void> {
  // Each row is built once, in FROM: `(jsonb_populate_record(...)).*` in the select list calls
  // it once per column of the table (60,000 copies took 51 s that way, 6.5 s this way).
  await sql`
    with copies as (
      select n, ${`ord_${prefix}_`} || n as id from generate_series(0, ${count - 1}) n
    ), orders_in as (
      insert into orders
      select r.* from orders o, copies c, jsonb_populate_record(null::orders, to_jsonb(o) || jsonb_build_object(
        'id', c.id, 'source_order_id', ${`${prefix}-`} || c.n)) r
      where o.id = ${templateId}
    ), items_in as (
      insert into order_line_items
      select r.* from order_line_items li, copies c,
        jsonb_populate_record(null::order_line_items, to_jsonb(li) || jsonb_build_object('order_id', c.id)) r
      where li.order_id = ${templateId}
    )
    insert into protection_policies
    select r.* from protection_policies p, copies c, jsonb_populate_record(null::protection_policies,
      to_jsonb(p) || jsonb_build_object('id', ${`pol_${prefix}_`} || c.n, 'order_id', c.id)) r
    where p.order_id = ${templateId} and p.removed_at is null`.execute(db);
  await sql`analyze orders, order_line_items, protection_policies`.execute(db);
}

/** Answers the status of a probe request, throwing when it is not `expected`. */
async function probe(url: string, init: RequestInit, expected: number): Promise<void> {
  const res = await fetch(url, init);
  if (res.status !== expected) throw new Error(`${init.method} ${url} answered ${res.status}: ${await res.text()}`);
}

const ratioLine = (label: string, a: Measured, b: Measured, goal: string) =>
  process.stdout.write(`${label}: ${(a.rps / b.rps).toFixed(2)} (${goal})\n`);

/** One service over one database, its baselines, and how each section measures against them. */
interface WritesRig {
  db: Db;
  base: string;
  token: string;
  subscribedToken: string;
  /** The service and baselines by name: node:http + upsert, the claim transaction, the quote by hand. */
  baselines: { upsert: string; claimTxn: string; quoteHand: string };
  json(token: string, extra?: Record<string, string>): Record<string, string>;
  orderPut(name: string, token: string, prefix: string, extra?: Record<string, string>): Target;
  measured(targets: Target[]): Promise<Measured[]>;
  /** Prints and keeps a guarded row's ratio (figures.ts), beside its committed figure. */
  ratio(row: GuardedRow, label: string, a: Measured, b: Measured, goal: string): void;
  /** Orders made ready for claims, per side. */
  freshOrders: number;
}

/** How long a run measures: the full rows, or the guard's short form (guard.ts). */
export interface WritesRun {
  fsync: Fsync;
  seconds?: { warmUp: number; total: number };
  /** Rounds of each comparison, even (`inTurn`; default ROUNDS). */
  rounds?: number;
  freshOrders?: number;
  /** The rows to run (default those BENCH_WRITES names, or all). */
  rows?: WriteRow[];
}
type WriteRow = 'order' | 'subscriber' | 'versions' | 'quote' | 'claim';

/** One run of the write rows on one database: what each measured and each guarded row's ratio. */
export async function benchWritesOn(run: WritesRun): Promise<{ rows: Measured[]; ratios: Ratios }> {
  const database = await fsyncDatabase(run.fsync);
  const db = createDb(database.url);
  const secret = randomBytes(32);
  const children: Awaited<ReturnType<typeof startProcess>>[] = [];
  const rows: Measured[] = [];
  const ratios: Ratios = {};
  const wanted = (row: WriteRow) => (run.rows ? run.rows.includes(row) : !ROWS || ROWS.includes(row));
  try {
    await migrateToLatest(db);
    const rig = await writesRig(db, database.url, secret, children, { rows, ratios, run });
    if (wanted('order')) await writesOrder(rig);
    if (wanted('subscriber')) await writesSubscriber(rig);
    if (wanted('versions')) await writesVersions(rig);
    if (wanted('quote')) await writesQuote(rig);
    if (wanted('claim')) await writesClaim(rig);
    return { rows, ratios };
  } finally {
    for (const child of children) await stopProcess(child);
    await db.destroy();
    await database.stop();
  }
}

async function writesRig(
  db: Db,
  databaseUrl: string,
  secret: Buffer,
  children: Awaited<ReturnType<typeof startProcess>>[],
  out: { rows: Measured[]; ratios: Ratios; run: WritesRun },
): Promise<WritesRig> {
  const plain = await benchInstallation(db, secret, 'writes', ['order:update', 'claim:manage', 'quote:read']);
  // Subscribed to the protection topics, so every event also fans out one delivery (D35).
  const subscribed = await benchInstallation(db, secret, 'writes-sub', ['order:update'], {
    webhookUrl: 'https://bench.example.com/hook',
    webhookTopics: ['protection/added', 'protection/removed'],
  });
  const service = await startService(databaseUrl, secret);
  children.push(service.child);
  const base = service.base;
  // CPU per request of the service, each baseline's server, PostgreSQL and the load generator.
  const meters: CpuMeters = {
    service: processCpu(service.child.pid),
    postgres: await postgresCpu(databaseUrl),
    'load generator': ownCpu,
  };
  const port = async (name: string, script: string, env: Record<string, string>) => {
    const p = await freePort();
    const child = await startProcess(script, { PORT: String(p), ...env });
    children.push(child);
    meters[name] = processCpu(child.pid);
    return `http://127.0.0.1:${p}`;
  };
  const store = { BENCH_DATABASE_URL: databaseUrl, BENCH_STORE_ID: plain.store.id };
  const rules = (
    await db
      .selectFrom('pricingRuleSets')
      .select('rules')
      .where('storeId', '=', plain.store.id)
      .where('type', '=', 'SHIPPING')
      .executeTakeFirstOrThrow()
  ).rules;
  const baselines = {
    upsert: await port('upsert', 'scripts/bench/serve-upsert.ts', store),
    claimTxn: await port('claim txn', 'scripts/bench/serve-claim-txn.ts', store),
    quoteHand: await port('by hand', 'scripts/bench/serve-quote-hand.ts', { BENCH_RULES: JSON.stringify(rules) }),
  };
  const json = (t: string, extra: Record<string, string> = {}) => ({
    authorization: `Bearer ${t}`,
    'content-type': 'application/json',
    ...extra,
  });
  const body = JSON.stringify(ORDER);
  const token = plain.tokenFor(base);
  await probe(`${base}/v1/orders/probe`, { method: 'PUT', headers: json(token), body }, 200);
  return {
    db,
    base,
    token,
    subscribedToken: subscribed.tokenFor(base),
    baselines,
    json,
    orderPut: (name, t, prefix, extra = {}) => ({
      name,
      url: `${base}/v1/orders/${prefix}-[<id>]`,
      method: 'PUT',
      headers: json(t, extra),
      body,
      idReplacement: true,
    }),
    async measured(targets) {
      await resetStatements(databaseUrl);
      const r = await compare(targets, out.run.rounds, meters, out.run.seconds, databaseUrl);
      printTable(r);
      await printStatements(databaseUrl, r[0]!.requests ?? 0);
      out.rows.push(...r);
      return r;
    },
    ratio: (row, label, a, b, goal) => keepRatio(out, row, label, a, b, goal),
    freshOrders: out.run.freshOrders ?? FRESH_ORDERS,
  };
}

/**
 * Prints a guarded row's ratio beside the committed one (figures.json) and keeps it; a side
 * with a failed request measured nothing (a failure answers faster than the work), so the row
 * then keeps no ratio, which the guard counts as lost.
 */
function keepRatio(
  out: { ratios: Ratios; run: WritesRun },
  row: GuardedRow,
  label: string,
  a: Measured,
  b: Measured,
  goal: string,
) {
  const failed = a.non2xx + a.errors + b.non2xx + b.errors;
  if (failed > 0) {
    process.stdout.write(
      `${label}: not measured, ${failed} requests failed (${a.name}: ${a.non2xx + a.errors}, ${b.name}: ${b.non2xx + b.errors})\n`,
    );
    return;
  }
  const ratio = a.rps / b.rps;
  out.ratios[row] = ratio;
  const committed = committedRatio(out.run.fsync, row);
  process.stdout.write(
    `${label}: ${ratio.toFixed(2)} (${goal}${committed === undefined ? '' : `; committed ${committed.toFixed(2)}`})\n`,
  );
}

async function writesOrder(rig: WritesRig): Promise<void> {
  const [order, bare] = await rig.measured([
    rig.orderPut('PUT /v1/orders/:id (new protected order)', rig.token, 'a'),
    {
      name: 'node:http + one pg upsert of the body',
      url: `${rig.baselines.upsert}/v1/orders/raw-[<id>]`,
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ORDER),
      idReplacement: true,
    },
  ]);
  rig.ratio('order', 'PUT order / node:http + upsert', order!, bare!, 'goal >= 0.5');
}

async function writesSubscriber(rig: WritesRig): Promise<void> {
  const [sub, nosub] = await rig.measured([
    rig.orderPut('PUT new order, app subscribed to protection/added', rig.subscribedToken, 's'),
    rig.orderPut('PUT new order, no subscriber', rig.token, 'n'),
  ]);
  rig.ratio('subscriber', 'PUT order, subscribed / not', sub!, nosub!, 'goal >= 0.9');
}

async function writesVersions(rig: WritesRig): Promise<void> {
  const old = { 'api-version': '2025-01-01' };
  await probe(
    `${rig.base}/v1/orders/probe-old`,
    { method: 'PUT', headers: rig.json(rig.token, old), body: JSON.stringify(ORDER) },
    200,
  );
  const [none, latest, older] = await rig.measured([
    rig.orderPut('PUT new order, no Api-Version', rig.token, 'v0'),
    rig.orderPut(`PUT new order, Api-Version: ${LATEST_API_VERSION}`, rig.token, 'v1', {
      'api-version': LATEST_API_VERSION,
    }),
    rig.orderPut('PUT new order, Api-Version: 2025-01-01', rig.token, 'v2', old),
  ]);
  ratioLine(`Api-Version ${LATEST_API_VERSION} / none`, latest!, none!, 'goal: no difference beyond noise');
  ratioLine('Api-Version 2025-01-01 / none', older!, none!, 'the cost of rendering the old answer');
}

async function writesQuote(rig: WritesRig): Promise<void> {
  const quoteBody = JSON.stringify(QUOTE);
  await probe(`${rig.base}/v2/quote`, { method: 'POST', headers: rig.json(rig.token), body: quoteBody }, 201);
  const [quote, hand] = await rig.measured([
    {
      name: 'POST /v2/quote, 50 items',
      url: `${rig.base}/v2/quote`,
      method: 'POST',
      headers: rig.json(rig.token),
      body: quoteBody,
    },
    {
      name: 'node:http checking by hand, same engine',
      url: `${rig.baselines.quoteHand}/v2/quote`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: quoteBody,
    },
  ]);
  rig.ratio('quote', 'quote / by hand', quote!, hand!, 'goal >= 0.5');
}

async function writesClaim(rig: WritesRig): Promise<void> {
  const headers = rig.json(rig.token);
  await probe(
    `${rig.base}/v1/orders/claim-template`,
    { method: 'PUT', headers, body: JSON.stringify(ORDER_WITH_ITEM) },
    200,
  );
  const template = await rig.db
    .selectFrom('orders')
    .select('id')
    .where('sourceOrderId', '=', 'claim-template')
    .executeTakeFirstOrThrow();
  await cloneOrders(rig.db, template.id, 'fresh-s', rig.freshOrders);
  await cloneOrders(rig.db, template.id, 'fresh-b', rig.freshOrders);
  await probe(`${rig.base}/v1/claims/claim-template`, { method: 'POST', headers, body: JSON.stringify(CLAIM) }, 200);
  // A shopper of their own on each request (autocannon's `[<id>]`), both sides, as a store's
  // claims come: with one e-mail on every claim, each filing's repeat_claimer read (D57) met the
  // newest claims of that one shopper, written by the filings beside it at the hot end of one
  // index range (0.25 against 0.33 to 0.37 on one machine), which no store's filings pay.
  const claimBody = JSON.stringify({ ...CLAIM, email: 'shopper-[<id>]@example.com' });
  const [filing, txn] = await rig.measured([
    {
      name: 'POST /v1/claims/:id, one item, fresh order',
      url: `${rig.base}/v1/claims/x`,
      method: 'POST',
      headers,
      body: claimBody,
      idReplacement: true,
      path: (n) => `/v1/claims/fresh-s-${n}`,
    },
    {
      name: 'node:http: lock the order, insert the claim',
      url: `${rig.baselines.claimTxn}/v1/claims/x`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: claimBody,
      idReplacement: true,
      path: (n) => `/v1/claims/fresh-b-${n}`,
    },
  ]);
  rig.ratio('claim', 'claim filing / node:http transaction', filing!, txn!, 'goal >= 0.4');
}

export function benchWrites(): Promise<Measured[]> {
  return onEachFsync(async (fsync) => (await benchWritesOn({ fsync })).rows);
}
