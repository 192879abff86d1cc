/**
 * The claims list at depth (D24) and claim filing, in one run against one server process:
 * - a store is seeded with 1,000,000 claims (and an item each) straight in SQL with
 *   generate_series (indexes rebuilt after the load);
 * - `GET /v1/claims?first=50` for the first page, and for the page after the 900,000th claim,
 *   reached through a real cursor (minted with the server's key, as the server would, and
 *   checked against the API before the load), without a filter and with `updatedAtMin` (one
 *   claim in a hundred was updated a month after filing, spread over the whole list). Goal: each
 *   deep page at least 0.9 of the first page's requests/second; the EXPLAIN of the pages is
 *   printed;
 * - `POST /v1/claims/:sourceOrderId` filing throughput, p50 and p99: on an order whose line
 *   items are unknown, and naming an item of an order whose line items are known, so that the
 *   claimable quantity (D39) is counted over the order's claims (a thousandth of the claims each).
 */
import { randomBytes } from 'node:crypto';
import { CompiledQuery, sql } from 'kysely';
import { createDb, type Db } from '../../server/src/db/database';
import { migrateToLatest } from '../../server/src/db/migrate';
import { transact } from '../../server/src/db/transact';
import { claimListBinding, claimPageQuery } from '../../server/src/domain/claims/read';
import { CursorCodec, type Position } from '../../server/src/lib/cursor';
import { positionTime } from '../../server/src/lib/pager';
import { benchInstallation } from './install';
import {
  benchDatabase,
  compare,
  type Measured,
  printStatements,
  printTable,
  resetStatements,
  startService,
  stopProcess,
  type Target,
} from './lib';

const CLAIMS = Number(process.env.BENCH_CLAIMS ?? 1_000_000);
const DEPTH = Math.floor(CLAIMS * 0.9);
const ORDERS = 1000;
/** Every hundredth claim was updated a month after it was filed: this filter keeps those. */
const UPDATED_EVERY = 100;
const UPDATED_SINCE = '2026-01-15T00:00:00.000Z';

/**
 * 1,000 orders and CLAIMS claims of one store, one item each, a millisecond apart, loaded the
 * way bulk loads are done: the secondary indexes of the two big tables are dropped and rebuilt
 * from their own definitions (pg_indexes) after the rows are in, and the foreign-key triggers
 * are skipped for the load (`session_replication_role = replica`, superuser only; the rows
 * are consistent by construction: the orders are written first).
 */
/** The two filings measured, each checked once first: naming no item, and naming bench-2's item-1 (D39). */
async function filingTargets(base: string, headers: Record<string, string>): Promise<Target[]> {
  const filing = (name: string, order: string, issue: Record<string, unknown>) => ({
    name,
    url: `${base}/v1/claims/${order}`,
    method: 'POST' as const,
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({
      email: 'bench@example.com',
      salesChannel: 'ONLINE',
      claimCategory: 'SHIPPING',
      fulfillmentIssues: [{ issues: [{ issueType: 'DAMAGED', quantity: 1, ...issue }] }],
      resolution: { desiredMethod: 'RESHIP' },
    }),
  });
  const targets = [
    filing('POST /v1/claims/:sourceOrderId (filing)', 'bench-1', {}),
    filing('POST /v1/claims/:sourceOrderId (filing, an item checked, D39)', 'bench-2', { sourceItemId: 'item-1' }),
  ];
  for (const t of targets) {
    const filed = await fetch(t.url, { method: t.method, headers: t.headers, body: t.body });
    if (filed.status !== 200) throw new Error(`${t.name} answered ${filed.status}`);
  }
  return targets;
}

export async function seed(
  db: Db,
  storeId: string,
  { claims = CLAIMS, states, shoppers = 1 }: { claims?: number; states?: readonly string[]; shoppers?: number } = {},
): Promise<number> {
  const started = Date.now();
  await transact(db, async (trx) => {
    const indexes = await sql<{ indexname: string; indexdef: string }>`
      select indexname, indexdef from pg_indexes
      where schemaname = 'public' and tablename in ('claims', 'claim_items') and indexname not like '%_pkey'`.execute(
      trx,
    );
    for (const i of indexes.rows) await sql`drop index ${sql.id(i.indexname)}`.execute(trx);
    await sql`set local session_replication_role = replica`.execute(trx);
    await sql`
      insert into orders (id, store_id, source_order_id, source_order_number, currency, source_created_at, platform_id, total)
      select 'ord_bench_' || n, ${storeId}, 'bench-' || n, '#' || n, 'USD', timestamptz '2026-01-01', 'api', 100
      from generate_series(1, ${ORDERS}) n`.execute(trx);
    await sql`
      insert into claims (
        id, store_id, order_id, source_order_id, author_email, claim_type, claim_category, sales_channel,
        resolution_requested, created_at, updated_at, claim_state
      )
      select 'clm_bench_' || lpad(n::text, 7, '0'), ${storeId}, 'ord_bench_' || (n % ${ORDERS} + 1),
        'bench-' || (n % ${ORDERS} + 1),
        -- One shopper for every claim, or \`shoppers\` of them in turn (a few claims each, as in a store).
        case when ${shoppers} = 1 then 'shopper@example.com' else 'shopper-' || (n % ${shoppers}) || '@example.com' end,
        'DAMAGED', 'SHIPPING', 'ONLINE', 'RESHIP',
        timestamptz '2026-01-01' + n * interval '1 millisecond',
        timestamptz '2026-01-01' + n * interval '1 millisecond' + (n % ${UPDATED_EVERY} = 0)::int * interval '30 days',
        -- NEW unless \`states\` spreads the claims over states in turn (the dashboard's tabs).
        (${states ?? ['NEW']}::text[])[n % ${states?.length ?? 1} + 1]
      from generate_series(1, ${claims}) n`.execute(trx);
    await sql`
      insert into claim_items (id, claim_id, position, item_id, quantity, issue_type)
      select 'cli_bench_' || n, 'clm_bench_' || lpad(n::text, 7, '0'), 1, 'item-1', 1, 'DAMAGED'
      from generate_series(1, ${claims}) n`.execute(trx);
    // bench-2's line items are known: a filing that names item-1 is checked against its claims (D39).
    await sql`update orders set line_items_known = true where id = 'ord_bench_2'`.execute(trx);
    await sql`
      insert into order_line_items (order_id, source_item_id, position, quantity)
      values ('ord_bench_2', 'item-1', 0, 1000000000)`.execute(trx);
    await sql`set local session_replication_role = origin`.execute(trx);
    for (const i of indexes.rows) await sql.raw(i.indexdef).execute(trx);
  });
  await sql`analyze orders, claims, claim_items`.execute(db);
  return (Date.now() - started) / 1000;
}

/** EXPLAIN (ANALYZE, BUFFERS) of exactly the query a list page runs. */
async function explain(
  db: Db,
  storeId: string,
  after: Position | undefined,
  filters: { updatedAtMin?: string } = {},
): Promise<string> {
  const compiled = claimPageQuery(storeId, filters, { after, limit: 51, backward: false, descending: false }).compile(
    db,
  );
  const plan = await db.executeQuery<{ 'QUERY PLAN': string }>(
    CompiledQuery.raw(`explain (analyze, buffers, costs off) ${compiled.sql}`, [...compiled.parameters]),
  );
  return plan.rows.map((r) => Object.values(r)[0]).join('\n');
}

export async function benchClaims(): Promise<Measured[]> {
  const database = await benchDatabase();
  const db = createDb(database.url);
  const secret = randomBytes(32);
  try {
    await migrateToLatest(db);
    const installed = await benchInstallation(db, secret, 'claims', ['claim:manage', 'order:update']);
    const storeId = installed.store.id;
    const seconds = await seed(db, storeId);
    process.stdout.write(`seeded ${CLAIMS} claims with their items in ${seconds.toFixed(1)} s\n`);

    // The position of the DEPTH-th claim, found once (by OFFSET, here only) to mint its cursor.
    const deep = (
      await sql<{ id: string; at: string }>`
        select id, ${positionTime('created_at')} as at
        from claims where store_id = ${storeId} order by created_at, id offset ${DEPTH - 1} limit 1`.execute(db)
    ).rows[0]!;
    const position = { createdAt: deep.at, id: deep.id };
    const codec = new CursorCodec(secret);
    const cursor = codec.encode(position, claimListBinding(storeId, {}));
    const updatedCursor = codec.encode(position, claimListBinding(storeId, { updatedAtMin: UPDATED_SINCE }));

    const { base, child: server } = await startService(database.url, secret);
    const headers = { authorization: `Bearer ${installed.tokenFor(base)}` };
    const rows: Measured[] = [];
    try {
      const firstUrl = `${base}/v1/claims?first=50`;
      const deepUrl = `${base}/v1/claims?first=50&after=${encodeURIComponent(cursor)}`;
      const check = await fetch(deepUrl, { headers });
      const page = (await check.json()) as { edges: { node: { id: string } }[] };
      const expected = `clm_bench_${String(DEPTH + 1).padStart(7, '0')}`;
      if (check.status !== 200 || page.edges[0]?.node.id !== expected)
        throw new Error(`the deep page answered ${check.status}, first ${page.edges[0]?.node.id}, not ${expected}`);
      const updatedUrl = `${base}/v1/claims?first=50&updatedAtMin=${UPDATED_SINCE}&after=${encodeURIComponent(updatedCursor)}`;
      const updated = await fetch(updatedUrl, { headers });
      const updatedPage = (await updated.json()) as { edges: { node: { id: string } }[] };
      // The first claim after the DEPTH-th that was updated since.
      const firstUpdated = `clm_bench_${String(DEPTH + UPDATED_EVERY - (DEPTH % UPDATED_EVERY)).padStart(7, '0')}`;
      if (updated.status !== 200 || updatedPage.edges[0]?.node.id !== firstUpdated || updatedPage.edges.length !== 50)
        throw new Error(`the filtered deep page answered ${updated.status}, first ${updatedPage.edges[0]?.node.id}`);
      const filing = await filingTargets(base, headers);
      await resetStatements(database.url);
      rows.push(
        ...(await compare([
          { name: 'GET /v1/claims?first=50 (first page)', url: firstUrl, headers },
          { name: `GET /v1/claims?first=50&after=<claim ${DEPTH}>`, url: deepUrl, headers },
          { name: `GET /v1/claims?first=50&updatedAtMin=…&after=<claim ${DEPTH}>`, url: updatedUrl, headers },
          ...filing,
        ])),
      );
    } finally {
      await stopProcess(server);
    }
    printTable(rows);
    await printStatements(
      database.url,
      rows.reduce((n, r) => n + (r.requests ?? 0), 0),
      8,
    );
    const ratio = (row: Measured) => (row.rps / rows[0]!.rps).toFixed(2);
    process.stdout.write(`deep page / first page: ${ratio(rows[1]!)} of the requests/second (goal >= 0.9)\n`);
    process.stdout.write(`updatedAtMin deep page / first page: ${ratio(rows[2]!)} (goal >= 0.9)\n`);
    process.stdout.write(`\nEXPLAIN first page:\n${await explain(db, storeId, undefined)}\n`);
    process.stdout.write(`\nEXPLAIN page after claim ${DEPTH}:\n${await explain(db, storeId, position)}\n`);
    const filtered = await explain(db, storeId, position, { updatedAtMin: UPDATED_SINCE });
    process.stdout.write(`\nEXPLAIN updatedAtMin page after claim ${DEPTH}:\n${filtered}\n`);
    return rows;
  } finally {
    await db.destroy();
    await database.stop();
  }
}
