import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDb, type Db, inOneTrip, poolOf, prepared } from '../../src/db/database';
import { transact } from '../../src/db/transact';
import { fastPathStates } from '../../src/runtime/index';

const on = (device: string) => fastPathStates().find((s) => s.name === device)!.on;
const heldBegin = on('held-begin');

/**
 * How statements travel (runtime/pg-wire.ts): a transaction's `begin` waits for the transaction's
 * first statement and goes with it, answered by one ReadyForQuery; a transaction with no
 * statement never reaches the server; `inOneTrip` sends a transaction's statements together.
 * With a device off (FAST_PATHS), the same work takes the stock number of round trips, and
 * answers the same.
 */
describe('transactions on the wire', () => {
  let db: Db;
  /** ReadyForQuery messages received: one per round trip. */
  let roundTrips = 0;

  beforeAll(async () => {
    db = createDb(inject('postgresUrl'), { max: 1 });
    poolOf(db)!.on('connect', (client) => {
      (client as unknown as { connection: NodeJS.EventEmitter }).connection.on('readyForQuery', () => roundTrips++);
    });
    await sql`create table if not exists held_test (id int primary key, note text)`.execute(db);
    await sql`truncate held_test`.execute(db);
  });
  afterAll(async () => {
    await sql`drop table if exists held_test`.execute(db);
    await db.destroy();
  });

  const trips = async <T>(work: () => Promise<T>): Promise<{ trips: number; result: T }> => {
    const before = roundTrips;
    const result = await work();
    return { trips: roundTrips - before, result };
  };
  const insert = (id: number, note: string) => prepared(sql`insert into held_test (id, note) values (${id}, ${note})`);

  it('sends begin with the first statement: one round trip for it, one for the commit', async () => {
    // The statement's first use on the connection parses it; begin goes alone before it.
    const first = await trips(() => transact(db, (trx) => insert(1, 'one').execute(trx)));
    expect(first.trips).toBe(3);
    const next = await trips(() => transact(db, (trx) => insert(3, 'three').execute(trx)));
    expect(next.trips).toBe(heldBegin ? 2 : 3);
    const rows = await sql<{ note: string }>`select note from held_test order by id`.execute(db);
    expect(rows.rows).toEqual([{ note: 'one' }, { note: 'three' }]);
    await sql`delete from held_test where id = 3`.execute(db);
  });

  it('answers the first statement its own rows, parsed as usual, by either protocol', async () => {
    const { result } = await trips(() =>
      transact(db, async (trx) => {
        const a = await prepared(sql<{ n: number; at: Date }>`select ${2.5}::numeric as n, now() as at`).execute(trx);
        return a.rows;
      }),
    );
    expect(result[0]!.n).toBe(2.5);
    expect(result[0]!.at).toBeInstanceOf(Date);
    const simple = await transact(db, async (trx) => (await sql<{ one: number }>`select 1 as one`.execute(trx)).rows);
    expect(simple).toEqual([{ one: 1 }]);
    // Several statements in one text (as migrations write them) still run, in the transaction.
    await expect(
      transact(db, async (trx) => {
        await sql`insert into held_test values (8, 'a'); insert into held_test values (9, 'b')`.execute(trx);
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    const kept = await sql<{ id: number }>`select id from held_test where id in (8, 9)`.execute(db);
    expect(kept.rows).toEqual([]);
  });

  it('sends nothing for a transaction without statements', async () => {
    const { trips: n } = await trips(() => transact(db, async () => 'nothing'));
    expect(n).toBe(heldBegin ? 0 : 2);
  });

  it('rolls back when the first statement fails, and the connection serves the next one', async () => {
    await expect(
      transact(db, async (trx) => {
        await insert(1, 'again').execute(trx); // duplicate key
      }),
    ).rejects.toThrow(/duplicate key/);
    await expect(
      transact(db, async (trx) => {
        await insert(2, 'two').execute(trx);
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    const rows = await sql<{ id: number }>`select id from held_test order by id`.execute(db);
    expect(rows.rows).toEqual([{ id: 1 }]);
    const open = await sql<{ open: boolean }>`select now() = statement_timestamp() as open`.execute(db);
    expect(open.rows).toEqual([{ open: true }]); // not left inside a transaction
  });

  it('keeps a statement that failed to parse unparsed, so its next use fails the same way', async () => {
    const broken = prepared(sql`selec ${1}::int as x`);
    for (let i = 0; i < 2; i++) {
      await expect(transact(db, (trx) => broken.execute(trx))).rejects.toThrow(/syntax error/);
    }
    const fine = await transact(db, (trx) => prepared(sql<{ x: number }>`select ${7}::int as x`).execute(trx));
    expect(fine.rows).toEqual([{ x: 7 }]);
  });

  it('runs statements in one trip as one transaction, each answered, each seeing those before it', async () => {
    const note = (id: number) => sql<{ note: string }>`select note from held_test where id = ${id}`;
    const lock = sql`select id from held_test where id = ${1} for update`;
    const write = sql`insert into held_test (id, note) values (${4}, ${'four'}) returning note`;
    // First use on the connection: one by one, in a transaction: begin, three statements, commit.
    const first = await trips(() => inOneTrip(db, [lock, write, note(4)]));
    expect(first.trips).toBe(5);
    expect(first.result.map((r) => r.rows)).toEqual([[{ id: 1 }], [{ note: 'four' }], [{ note: 'four' }]]);
    await sql`delete from held_test where id = 4`.execute(db);
    const next = await trips(() => inOneTrip(db, [lock, write, note(4)]));
    expect(next.trips).toBe(on('one-trip') ? 1 : 5);
    expect(next.result.map((r) => r.rows)).toEqual(first.result.map((r) => r.rows));
  });

  it('shows the statements of a trip to onQuery, as every other statement', async () => {
    const seen: string[] = [];
    const watched = createDb(inject('postgresUrl'), { max: 1, onQuery: (text) => seen.push(text) });
    try {
      await inOneTrip(watched, [sql`select ${1}::int as a`, sql`select ${2}::int as b`]);
    } finally {
      await watched.destroy();
    }
    expect(seen.map((t) => t.replace(/^\/\* prepared \*\/ /, ''))).toEqual([
      'select $1::int as a',
      'select $1::int as b',
    ]);
  });

  it('keeps nothing of a trip whose statement fails, and answers its error', async () => {
    const write = (id: number) => sql`insert into held_test (id, note) values (${id}, ${'x'})`;
    await inOneTrip(db, [write(5), write(6)]); // parsed on the connection
    await expect(inOneTrip(db, [write(7), write(1)])).rejects.toThrow(/duplicate key/);
    const rows = await sql<{ id: number }>`select id from held_test where id >= 5 order by id`.execute(db);
    expect(rows.rows).toEqual([{ id: 5 }, { id: 6 }]);
    await sql`delete from held_test where id >= 5`.execute(db);
  });

  // Plans are kept per connection only for named statements.
  it.skipIf(!on('named-statements'))(
    'plans every statement of a genericPlans trip once, where the choice is otherwise per call',
    async () => {
      const lookup = sql<{ note: string }>`select note from held_test where id = ${1} and note is not null`;
      const plans = sql`select generic_plans, custom_plans from pg_prepared_statements
      where statement like '%from held_test where id = $1 and note is not null'`;
      for (let i = 0; i < 3; i++) await inOneTrip(db, [lookup, plans], { genericPlans: true });
      const [, seen] = await inOneTrip(db, [lookup, plans], { genericPlans: true });
      expect(seen!.rows).toEqual([{ genericPlans: 4, customPlans: 0 }]);
      const mode = await sql<{ planCacheMode: string }>`show plan_cache_mode`.execute(db);
      expect(mode.rows[0]!.planCacheMode).toBe('auto'); // the trip's setting only
    },
  );
});
