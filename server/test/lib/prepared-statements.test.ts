import {
  CamelCasePlugin,
  type CompiledQuery,
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  sql,
} from 'kysely';
import { describe, expect, it } from 'vitest';
import { type Db, prepared } from '../../src/db/database';

/** A database that records the statements it is handed and answers no rows. */
function recordingDb(): { db: Db; ran: CompiledQuery[] } {
  const ran: CompiledQuery[] = [];
  const db = new Kysely({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (k) => new PostgresIntrospector(k),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
    plugins: [new CamelCasePlugin()],
    log: (event) => {
      ran.push(event.query);
    },
  }) as Db;
  return { db, ran };
}

describe('prepared statements', () => {
  const items = ['a', 'b'];
  const statement = (extra: ReturnType<typeof sql>) => sql`
    with o as (insert into orders (id, store_id) select ${'ord_1'}, ${'st_1'} returning id)
    ${sql`, i as (select ${'x'}::text, u.* from unnest(${items}::text[]) u)`}
    select ${sql.raw('o.id')}, ${1.5}::numeric ${extra} from o`;

  it('run the text and values Kysely compiles, marked as prepared', async () => {
    const { db, ran } = recordingDb();
    const query = statement(sql`, ${null}::text as nothing`);
    await prepared(query).execute(db);
    const kysely = query.compile(db);
    expect(ran[0]!.sql).toBe(`/* prepared */ ${kysely.sql}`);
    expect(ran[0]!.parameters).toEqual(kysely.parameters);
    expect(ran[0]!.parameters).toEqual(['ord_1', 'st_1', 'x', items, 1.5, null]);
  });

  it('leave identifiers and literals to Kysely, which renames and inlines them', async () => {
    const { db, ran } = recordingDb();
    const query = statement(sql`, ${sql.ref('o.storeId')}, ${sql.lit(2)}`);
    await prepared(query).execute(db);
    expect(ran[0]!.sql).toBe(`/* prepared */ ${query.compile(db).sql}`);
    expect(ran[0]!.sql).toContain('"o"."store_id", 2');
  });
});
