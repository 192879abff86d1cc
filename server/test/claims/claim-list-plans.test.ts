import { CLAIM_QUEUES, type TClaimQueue } from '@protection-service/contract';
import { CompiledQuery, type RawBuilder, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/database';
import { type ClaimFilters, claimPageQuery } from '../../src/domain/claims/read';
import { orderPageQuery } from '../../src/domain/commerce/order-read';
import type { Position } from '../../src/lib/cursor';
import { type PageRange, positionTime } from '../../src/lib/pager';
import { createOwner } from '../harness/fixtures';
import type { PlanNode } from '../harness/plans';
import { cloneDatabase } from '../harness/server';

const CLAIMS = 100_000;
const STATES = Object.values(CLAIM_QUEUES).flat();
const TYPES = ['DAMAGED', 'STOLEN', 'MISSING_ITEM', 'WRONG_ITEM'];

/** Every node of `plan` (and its children) that reads `table`: "<node type> <index>" with its rows. */
function readsOf(table: string, plan: PlanNode): { read: string; rows: number }[] {
  const own =
    plan['Relation Name'] === table
      ? [{ read: `${plan['Node Type']} ${plan['Index Name'] ?? ''}`.trim(), rows: plan['Actual Rows'] ?? 0 }]
      : [];
  return [...own, ...(plan.Plans ?? []).flatMap((child) => readsOf(table, child))];
}

/** The tables `plan` reads whole (the item tables are empty here, and read whole by any plan). */
const seqScans = (plan: PlanNode): string[] => [
  ...(plan['Node Type'] === 'Seq Scan' ? [plan['Relation Name']!] : []),
  ...(plan.Plans ?? []).flatMap(seqScans),
];

/** The indexes `plan` reads that belong to `table` (by the migrations' names). */
const indexesOf = (table: string, plan: PlanNode): string[] => [
  ...(plan['Index Name']?.startsWith(`${table}_`) ? [plan['Index Name']] : []),
  ...(plan.Plans ?? []).flatMap((child) => indexesOf(table, child)),
];

/** The node types from the plan's root down to its first read of `table` (the page's own scan). */
function pathTo(table: string, plan: PlanNode): string[] | undefined {
  if (plan['Relation Name'] === table) return [plan['Node Type']];
  for (const child of plan.Plans ?? []) {
    const below = pathTo(table, child);
    if (below) return [plan['Node Type'], ...below];
  }
  return undefined;
}

/**
 * The claim list's pages (D24, D51) on a store of 100,000 claims, the plans PostgreSQL runs
 * (EXPLAIN ANALYZE of exactly the query a page sends): every tab of the queue, oldest and
 * newest first, first page and a deep one, reads only the page's rows from the tabs' index,
 * never the store's whole claims, and never sorts; the type filter has its own index; a search
 * reads the few claims it names by key. The order list (newest first, searched) likewise.
 */
describe('claim and order list plans on a store of 100,000 claims (D24, D51)', () => {
  let database: Awaited<ReturnType<typeof cloneDatabase>>;
  let db: Db;
  let storeId: string;

  beforeAll(async () => {
    database = await cloneDatabase();
    db = database.db;
    storeId = (await createOwner(db, 'plans')).store.id;
    const neighbour = (await createOwner(db, 'plans-neighbour')).store.id;
    for (const [store, count] of [
      [storeId, CLAIMS],
      [neighbour, 20_000],
    ] as const) {
      await sql`
        insert into orders (id, store_id, source_order_id, source_order_number, currency, source_created_at,
          platform_id, total, customer_email, created_at)
        select ${store} || '_ord_' || n, ${store}, 'o-' || n, '#' || n, 'USD', timestamptz '2026-01-01', 'api', 10,
          'buyer' || (n % 5000) || '@example.com', timestamptz '2026-01-01' + n * interval '1 second'
        from generate_series(1, ${count}::int) n
      `.execute(db);
      await sql`
        insert into claims (id, store_id, order_id, source_order_id, author_email, claim_state, claim_type,
          claim_category, sales_channel, created_at, updated_at)
        select ${store} || '_clm_' || lpad(n::text, 6, '0'), ${store}, ${store} || '_ord_' || n, 'o-' || n,
          'Shopper' || (n % 5000) || '@example.com', (${STATES}::text[])[n % 14 + 1], (${TYPES}::text[])[n % 4 + 1],
          'SHIPPING', 'ONLINE', timestamptz '2026-01-01' + n * interval '1 second',
          timestamptz '2026-01-01' + n * interval '1 second'
        from generate_series(1, ${count}::int) n
      `.execute(db);
    }
    await sql`analyze orders, claims`.execute(db);
  }, 300_000);
  afterAll(async () => {
    await database?.drop();
  });

  const explain = async (query: RawBuilder<unknown>): Promise<PlanNode> => {
    const compiled = query.compile(db);
    const { rows } = await db.executeQuery<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
      CompiledQuery.raw(`explain (analyze, costs off, format json) ${compiled.sql}`, [...compiled.parameters]),
    );
    return rows[0]!['QUERY PLAN'][0].Plan;
  };
  const range = (descending: boolean, after?: Position): PageRange => ({
    after,
    limit: 51,
    backward: false,
    descending,
  });
  /** The keyset position `depth` rows into the store's claims matching `where`, in the list's order. */
  const positionAt = async (where: RawBuilder<unknown>, descending: boolean, depth: number): Promise<Position> => {
    const direction = sql.raw(descending ? 'desc' : 'asc');
    const row = (
      await sql<{ id: string; at: string }>`
        select id, ${positionTime('created_at')} as at from claims c where c.store_id = ${storeId} and ${where}
        order by created_at ${direction}, id ${direction} offset ${depth} limit 1
      `.execute(db)
    ).rows[0]!;
    return { createdAt: row.at, id: row.id };
  };

  const tabs = Object.keys(CLAIM_QUEUES) as TClaimQueue[];
  for (const queue of tabs) {
    for (const descending of [false, true]) {
      it(`reads ${queue} ${descending ? 'newest' : 'oldest'} first from the tabs' index at any depth`, async () => {
        const inTab = (CLAIMS * CLAIM_QUEUES[queue].length) / STATES.length;
        const states = sql`c.claim_state = any(${CLAIM_QUEUES[queue]}::text[])`;
        for (const after of [undefined, await positionAt(states, descending, Math.floor(inTab * 0.9))]) {
          const plan = await explain(claimPageQuery(storeId, { queue }, range(descending, after)));
          const reads = readsOf('claims', plan);
          expect(reads.map((r) => r.read)).toEqual(['Index Scan claims_store_queue_page_idx']);
          expect(reads[0]!.rows).toBe(51);
          // Rows come off the index in the page's order: nothing between the scan and the limit sorts.
          expect(pathTo('claims', plan)).not.toContain('Sort');
          expect(seqScans(plan)).not.toContain('claims');
        }
      });
    }
  }

  it('reads a tab asked for by its states, and the type filter, from their indexes', async () => {
    const tab = readsOf(
      'claims',
      await explain(claimPageQuery(storeId, { claimState: ['DISMISSED', 'DENIED'] }, range(true))),
    );
    expect(tab.map((r) => r.read)).toEqual(['Index Scan claims_store_queue_page_idx']);
    const filters: ClaimFilters[] = [{ claimType: 'STOLEN' }, { claimType: 'STOLEN', order: 'desc' }];
    for (const f of filters) {
      const plan = await explain(claimPageQuery(storeId, f, range(f.order === 'desc')));
      const reads = readsOf('claims', plan);
      expect(reads.map((r) => r.read)).toEqual(['Index Scan claims_store_type_page_idx']);
      expect(reads[0]!.rows).toBe(51);
      expect(pathTo('claims', plan)).not.toContain('Sort');
    }
    // One state alone: its own page index, as before.
    const one = readsOf('claims', await explain(claimPageQuery(storeId, { claimState: ['OPEN'] }, range(false))));
    expect(one.map((r) => r.read)).toEqual(['Index Scan claims_store_state_page_idx']);
  });

  it('reads only the claims a search names, by key, whatever the store holds', async () => {
    for (const q of [`${storeId}_clm_000042`, '#4242', 'shopper77@EXAMPLE.com']) {
      const plan = await explain(claimPageQuery(storeId, { q }, range(true)));
      expect(seqScans(plan), q).not.toContain('claims');
      expect(seqScans(plan), q).not.toContain('orders');
      expect(new Set(indexesOf('claims', plan)), q).toEqual(
        new Set(['claims_pkey', 'claims_order_idx', 'claims_store_email_time_idx']),
      );
      expect(new Set(indexesOf('orders', plan)), q).toEqual(new Set(['orders_store_number_idx', 'orders_pkey']));
      // The e-mail names 20 of the store's claims; nothing reads more than that.
      for (const r of readsOf('claims', plan)) expect(r.rows, `${q} ${r.read}`).toBeLessThanOrEqual(20);
    }
  });

  it('pages the order list newest first from its index, and searches orders by key', async () => {
    const deep = (
      await sql<{ id: string; at: string }>`
        select id, ${positionTime('created_at')} as at from orders where store_id = ${storeId}
        order by created_at desc, id desc offset 90000 limit 1
      `.execute(db)
    ).rows[0]!;
    for (const after of [undefined, { createdAt: deep.at, id: deep.id }]) {
      const plan = await explain(orderPageQuery(storeId, {}, range(true, after)));
      const reads = readsOf('orders', plan);
      expect(reads.map((r) => r.read)).toEqual(['Index Scan orders_store_page_idx']);
      expect(reads[0]!.rows).toBe(51);
      expect(pathTo('orders', plan)).not.toContain('Sort');
    }
    for (const q of ['#4242', 'BUYER42@example.com']) {
      const plan = await explain(orderPageQuery(storeId, { q }, range(true)));
      expect(seqScans(plan), q).not.toContain('orders');
      expect(new Set(indexesOf('orders', plan)), q).toEqual(
        new Set(['orders_pkey', 'orders_store_email_idx', 'orders_store_number_idx']),
      );
      for (const r of readsOf('orders', plan)) expect(r.rows, `${q} ${r.read}`).toBeLessThanOrEqual(20);
    }
  });
});
