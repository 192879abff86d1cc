/**
 * The dashboard's claim queue and claim page on a store of 100,000 claims (D50: 150 ms p95 on
 * any tab, at any depth), through the full service as a browser reaches it: a signed-in
 * session cookie, the page handler, its staff token (D49) and its calls to the API over HTTP.
 * The claims are spread over the fourteen states in turn, so each tab holds from 7,000 to
 * 29,000 of them, over 1,000 orders and 25,000 shoppers. Every target is measured against the first page of the smallest tab
 * ("Waiting on shopper") in the same run, in alternating rounds of one request at a time (the
 * latency a person waits for), reported as p50, p95 and p99 and the ratio of p95s.
 */
import { randomBytes } from 'node:crypto';
import { CLAIM_QUEUES, type TClaimQueue } from '@protection-service/contract';
import { sql } from 'kysely';
import { createDb, type Db } from '../../server/src/db/database';
import { migrateToLatest } from '../../server/src/db/migrate';
import { claimListBinding } from '../../server/src/domain/claims/read';
import { CursorCodec } from '../../server/src/lib/cursor';
import { positionTime } from '../../server/src/lib/pager';
import { seed } from './claims';
import { benchInstallation } from './install';
import { benchDatabase, inTurn, percentile, ROUNDS, startService, stopProcess } from './lib';

const CLAIMS = Number(process.env.BENCH_DASHBOARD_CLAIMS ?? 100_000);
const REQUESTS = Number(process.env.BENCH_DASHBOARD_REQUESTS ?? 60);
const GOAL_P95_MS = 150;
const STATES = Object.values(CLAIM_QUEUES).flat();

/** A deep page of a tab: the cursor of its `depth`-th claim, minted as the server would. */
async function deepCursor(db: Db, codec: CursorCodec, storeId: string, queue: TClaimQueue | undefined, depth: number) {
  const states = queue ? [...CLAIM_QUEUES[queue]] : STATES;
  const row = (
    await sql<{ id: string; at: string }>`
      select id, ${positionTime('created_at')} as at from claims
      where store_id = ${storeId} and claim_state = any(${states}::text[])
      order by created_at, id offset ${depth - 1} limit 1`.execute(db)
  ).rows[0]!;
  return codec.encode(
    { createdAt: row.at, id: row.id },
    claimListBinding(storeId, { ...(queue ? { queue } : {}), order: 'asc' }),
  );
}

/** Signs in through the sign-in page as a browser would, and answers the session cookie. */
async function signIn(base: string, email: string, password: string): Promise<string> {
  const form = await fetch(`${base}/dashboard/sign-in`);
  const anonymous = form.headers.getSetCookie()[0]!.split(';')[0]!;
  const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())![1]!;
  const signedIn = await fetch(`${base}/dashboard/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: anonymous, origin: base, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf, email, password, next: '/dashboard' }),
  });
  if (signedIn.status !== 303) throw new Error(`sign-in answered ${signedIn.status}`);
  return signedIn.headers.getSetCookie()[0]!.split(';')[0]!;
}

interface PageTarget {
  name: string;
  url: string;
  durations: number[];
}

async function measure(targets: PageTarget[], cookie: string): Promise<void> {
  const once = async (t: PageTarget) => {
    const started = performance.now();
    const res = await fetch(t.url, { headers: { cookie } });
    const body = await res.text();
    if (res.status !== 200) throw new Error(`${t.name} answered ${res.status}: ${body.slice(0, 200)}`);
    return performance.now() - started;
  };
  for (const t of targets) for (let i = 0; i < 5; i++) await once(t); // warm-up, and every page answers 200
  for (let round = 0; round < ROUNDS; round++) {
    for (const t of inTurn(targets, round)) for (let i = 0; i < REQUESTS; i++) t.durations.push(await once(t));
  }
}

function report(targets: PageTarget[]): void {
  const rows = targets.map((t) => {
    const sorted = [...t.durations].sort((a, b) => a - b);
    return { name: t.name, p50: percentile(sorted, 0.5), p95: percentile(sorted, 0.95), p99: percentile(sorted, 0.99) };
  });
  const base = rows[0]!;
  const header = ['target', 'p50 ms', 'p95 ms', 'p99 ms', 'p95 / baseline', `p95 <= ${GOAL_P95_MS} ms`];
  const lines = rows.map((r) => [
    r.name,
    r.p50.toFixed(1),
    r.p95.toFixed(1),
    r.p99.toFixed(1),
    (r.p95 / base.p95).toFixed(2),
    r.p95 <= GOAL_P95_MS ? 'yes' : 'NO',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  process.stdout.write(`${fmt(header)}\n${lines.map(fmt).join('\n')}\n`);
}

export async function benchDashboard(): Promise<void> {
  const database = await benchDatabase();
  const db = createDb(database.url);
  const secret = randomBytes(32);
  try {
    await migrateToLatest(db);
    const installed = await benchInstallation(db, secret, 'dashboard', ['claim:read']);
    const storeId = installed.store.id;
    // A shopper files four claims on average, as in a store; an order holds a hundred (1,000 orders).
    const seconds = await seed(db, storeId, { claims: CLAIMS, states: STATES, shoppers: Math.ceil(CLAIMS / 4) });
    process.stdout.write(`seeded ${CLAIMS} claims over ${STATES.length} states in ${seconds.toFixed(1)} s\n`);
    const user = await db
      .selectFrom('dashboardUsers')
      .select('email')
      .where('email', 'like', 'bench-dashboard-%')
      .executeTakeFirstOrThrow();
    const codec = new CursorCodec(secret);
    const deepAll = await deepCursor(db, codec, storeId, undefined, Math.floor(CLAIMS * 0.9));
    const deepToDo = await deepCursor(db, codec, storeId, 'to_do', Math.floor(CLAIMS * 0.25));
    const { base, child } = await startService(database.url, secret);
    try {
      const cookie = await signIn(base, user.email, 'bench-password');
      const queue = `${base}/dashboard/stores/${storeId}/claims`;
      const target = (name: string, url: string): PageTarget => ({ name, url, durations: [] });
      const targets = [
        target('queue "Waiting on shopper", first page (baseline)', `${queue}?tab=waiting_on_shopper`),
        ...(['to_do', 'on_hold', 'approved', 'declined', 'closed', 'all'] as const).map((tab) =>
          target(`queue "${tab}", first page`, `${queue}?tab=${tab}`),
        ),
        target('queue "all", newest first', `${queue}?tab=all&order=desc`),
        target(
          `queue "all", page after claim ${Math.floor(CLAIMS * 0.9)}`,
          `${queue}?tab=all&after=${encodeURIComponent(deepAll)}`,
        ),
        target(
          `queue "to_do", page after claim ${Math.floor(CLAIMS * 0.25)} of the tab`,
          `${queue}?tab=to_do&after=${encodeURIComponent(deepToDo)}`,
        ),
        target('queue, search by order number', `${queue}?tab=all&q=%23500`),
        target('claim page', `${queue}/clm_bench_${String(Math.floor(CLAIMS / 2)).padStart(7, '0')}`),
      ];
      await measure(targets, cookie);
      report(targets);
    } finally {
      await stopProcess(child);
    }
  } finally {
    await db.destroy();
    await database.stop();
  }
}
