import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db, poolOf } from '../../src/db/database';
import { fileClaim } from '../../src/domain/claims/filing';
import { type ClaimStore, claimBody, claimStore } from '../harness/claims';
import { type PlanNode, planNodes } from '../harness/plans';
import { startTestServer, type TestServer } from '../harness/server';

/**
 * The plan PostgreSQL runs for a claim's filing with its risk (D57), read by auto_explain
 * from the filing itself, among 2,000 stores and dashboard users: the risk's function is
 * planned at the one row it answers, so the statement's later parts (the members' notices of
 * D53, the webhook fan-out) read the claim's own store and members by key, as without the
 * risk, and none of them whole.
 */
describe("a filing's plan with its risk (D57)", () => {
  let server: TestServer;
  let s: ClaimStore;
  let db: Db;
  const plans: PlanNode[] = [];

  beforeAll(async () => {
    server = await startTestServer({}, { rateLimits: { token: 1e9 } });
    s = await claimStore(server, 'filing-plan');
    await s.putOrder('plan-1');
    await sql`
      insert into stores (id, name, domain, currency)
      select 'st_plan_' || n, 'Store ' || n, 'plan-' || n || '.example.com', 'USD' from generate_series(1, 2000) n`.execute(
      server.db,
    );
    await sql`
      insert into dashboard_users (id, email, password_hash)
      select 'usr_plan_' || n, 'plan-' || n || '@example.com', 'x' from generate_series(1, 2000) n`.execute(server.db);
    await sql`
      insert into store_members (store_id, user_id, notify_claim_filed)
      select 'st_plan_' || n, 'usr_plan_' || n, true from generate_series(1, 2000) n`.execute(server.db);
    await sql`analyze stores, dashboard_users, store_members`.execute(server.db);
    // One connection, every statement's plan sent to it as a notice (superuser: LOAD).
    db = createDb(server.databaseUrl, { max: 1 });
    poolOf(db)!.on('connect', (client) => {
      client.on('notice', (notice) => {
        const text = notice.message ?? '';
        const json = text.indexOf('{');
        if (text.startsWith('duration:') && json >= 0) plans.push(JSON.parse(text.slice(json)).Plan);
      });
    });
    await sql`load 'auto_explain'`.execute(db);
    for (const [name, value] of [
      ['auto_explain.log_min_duration', '0'],
      ['auto_explain.log_level', 'notice'],
      ['auto_explain.log_format', 'json'],
    ]) {
      await sql`select set_config(${name}, ${value}, false)`.execute(db);
    }
  });
  afterAll(async () => {
    await db?.destroy();
    await server.close();
  });

  it('plans the risk at one row and reads the stores, users and members by key', async () => {
    const actor = { storeId: s.owner.store.id, clientId: null, userId: null };
    await fileClaim(db, actor, 'plan-1', claimBody({ email: 'plan@example.com' }));
    const filing = plans.map(planNodes).find((all) => all.some((n) => n['Function Name'] === 'claim_risk'));
    expect(filing, 'the filing statement was explained').toBeDefined();
    expect(filing!.find((n) => n['Function Name'] === 'claim_risk')!['Plan Rows']).toBe(1);
    // The tables of every store, read by key; the test database's other tables are near empty,
    // read whole by any plan.
    const reads = (table: string) => filing!.filter((n) => n['Relation Name'] === table).map((n) => n['Node Type']);
    for (const table of ['stores', 'dashboard_users', 'store_members']) {
      expect(reads(table).length, table).toBeGreaterThan(0);
      expect(reads(table), table).not.toContain('Seq Scan');
    }
  });
});
