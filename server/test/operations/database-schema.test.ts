import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { migrations } from '@protection-service/migrations';
import { sql } from 'kysely';
import { Migrator, NO_MIGRATIONS } from 'kysely/migration';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDb, type Db } from '../../src/db/database';
import { migrateToLatest } from '../../src/db/migrate';
import { withDatabase } from '../harness/database-url';

const SCHEMA_TS = path.resolve(import.meta.dirname, '../../src/db/schema.ts');

/** What a column holds, as the application reads it (numeric and int8 parse to numbers). */
type Kind = 'string' | 'number' | 'boolean' | 'Date' | 'json' | 'array' | 'bytes' | `unknown ${string}`;
interface Column {
  kind: Kind;
  nullable: boolean;
}
type Tables = Record<string, Record<string, Column>>;

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

function kindOfSqlType(dataType: string): Kind {
  // pg has no parser for xid8: it reads as text.
  if (['text', 'character varying', 'character', 'uuid', 'inet', 'citext', 'xid8'].includes(dataType)) return 'string';
  if (['integer', 'smallint', 'bigint', 'numeric', 'double precision', 'real'].includes(dataType)) return 'number';
  if (dataType === 'boolean') return 'boolean';
  if (dataType.startsWith('timestamp') || dataType === 'date') return 'Date';
  if (dataType === 'jsonb' || dataType === 'json') return 'json';
  if (dataType === 'ARRAY') return 'array';
  if (dataType === 'bytea') return 'bytes';
  return `unknown ${dataType}`;
}

/** The tables and columns of a migrated database (our schema only, not the queue's). */
async function databaseTables(db: Db): Promise<Tables> {
  const rows = await sql<{ table: string; column: string; dataType: string; nullable: string }>`
    select c.table_name as "table", c.column_name as "column", c.data_type as "dataType", c.is_nullable as nullable
    from information_schema.columns c join information_schema.tables t
      on t.table_schema = c.table_schema and t.table_name = c.table_name
    where c.table_schema = 'public' and t.table_type = 'BASE TABLE' and c.table_name not like 'kysely_%'
  `.execute(db.withoutPlugins());
  const tables: Tables = {};
  for (const r of rows.rows) {
    tables[r.table] ??= {};
    tables[r.table]![r.column] = { kind: kindOfSqlType(r.dataType), nullable: r.nullable === 'YES' };
  }
  return tables;
}

/**
 * The tables and columns `db/schema.ts` declares, read with the TypeScript compiler: the
 * `Database` interface's properties are the tables, each table interface's properties the
 * columns, in camelCase (the CamelCasePlugin maps them), with the type a select answers.
 */
function declaredTables(): Tables {
  const program = ts.createProgram([SCHEMA_TS], {
    strict: true,
    skipLibCheck: true,
    noEmit: true,
    // Resolved as the project resolves: the contract's types through its package exports.
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(SCHEMA_TS)!;
  const database = source.statements.find(
    (s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === 'Database',
  )!;
  const tables: Tables = {};
  for (const table of checker.getTypeAtLocation(database).getProperties()) {
    const tableType = checker.getTypeOfSymbolAtLocation(table, database);
    const columns: Record<string, Column> = {};
    for (const column of tableType.getProperties()) {
      const type = checker.getTypeOfSymbolAtLocation(column, database);
      // ColumnType<S, I, U> (and Generated<T>) carry what a select answers as `__select__`.
      const select = type.getProperty('__select__');
      const insert = type.getProperty('__insert__');
      const selected = select ? checker.getTypeOfSymbolAtLocation(select, database) : type;
      const inserted = insert ? checker.getTypeOfSymbolAtLocation(insert, database) : undefined;
      columns[snake(column.name)] = columnOf(checker, selected, inserted);
    }
    tables[snake(table.name)] = columns;
  }
  return tables;
}

function columnOf(checker: ts.TypeChecker, selected: ts.Type, inserted: ts.Type | undefined): Column {
  const members = selected.isUnion() ? selected.types : [selected];
  const nullable = members.some((t) => t.flags & ts.TypeFlags.Null);
  const rest = members.filter((t) => !(t.flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined)));
  const kinds = new Set(rest.map((t) => kindOfTsType(checker, t)));
  // Json<T> is written as a JSON string (its insert type is string); a text[] column takes an array.
  const writtenAsString = inserted !== undefined && checker.typeToString(inserted) === 'string';
  let kind: Kind = kinds.size === 1 ? [...kinds][0]! : `unknown ${[...kinds].join('|')}`;
  if ((kind === 'array' || kind === 'json') && writtenAsString) kind = 'json';
  return { kind, nullable };
}

function kindOfTsType(checker: ts.TypeChecker, t: ts.Type): Kind {
  if (t.flags & (ts.TypeFlags.StringLike | ts.TypeFlags.EnumLike)) return 'string';
  if (t.flags & ts.TypeFlags.NumberLike) return 'number';
  if (t.flags & ts.TypeFlags.BooleanLike) return 'boolean';
  // A JSON value of any shape (`Json<unknown>`).
  if (t.flags & (ts.TypeFlags.Unknown | ts.TypeFlags.Any)) return 'json';
  const name = checker.typeToString(t);
  if (name === 'Date') return 'Date';
  if (name.startsWith('Buffer')) return 'bytes';
  if (checker.isArrayType(t)) return 'array';
  if (t.flags & ts.TypeFlags.Object) return 'json';
  return `unknown ${name}`;
}

describe('the database schema', () => {
  let admin: Db;
  const created: string[] = [];
  /** A new, empty database of the run's PostgreSQL. */
  async function freshDatabase(): Promise<Db> {
    const name = `schema_${randomBytes(5).toString('hex')}`;
    await sql`create database ${sql.id(name)}`.execute(admin);
    created.push(name);
    return createDb(withDatabase(inject('postgresUrl'), name), { max: 2 });
  }

  beforeAll(() => {
    admin = createDb(inject('postgresUrl'), { max: 1 });
  });
  afterAll(async () => {
    for (const name of created) await sql`drop database if exists ${sql.id(name)} with (force)`.execute(admin);
    await admin.destroy();
  });

  it('matches db/schema.ts: every table and column, with its kind and nullability', async () => {
    const db = await freshDatabase();
    try {
      await migrateToLatest(db);
      const actual = await databaseTables(db);
      const declared = declaredTables();
      const drift: string[] = [];
      for (const table of new Set([...Object.keys(declared), ...Object.keys(actual)])) {
        for (const column of new Set([...Object.keys(declared[table] ?? {}), ...Object.keys(actual[table] ?? {})])) {
          const [d, a] = [declared[table]?.[column], actual[table]?.[column]];
          if (JSON.stringify(d) !== JSON.stringify(a))
            drift.push(`${table}.${column}: schema.ts ${JSON.stringify(d)}, database ${JSON.stringify(a)}`);
        }
      }
      expect(drift).toEqual([]);
    } finally {
      await db.destroy();
    }
  });

  it('reads a drift in either direction as a failure', () => {
    const declared = declaredTables();
    expect(declared.claims?.updated_at).toEqual({ kind: 'Date', nullable: false });
    expect(declared.claims?.deny_reason).toEqual({ kind: 'string', nullable: true });
    expect(declared.claim_items?.images).toEqual({ kind: 'json', nullable: false });
    expect(kindOfSqlType('jsonb')).toBe('json');
    expect(kindOfSqlType('point')).toBe('unknown point');
  });

  it('runs every migration up, down to nothing, and up again', async () => {
    const db = await freshDatabase();
    try {
      const names = Object.keys(migrations);
      expect(await migrateToLatest(db)).toEqual(names);
      const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
      const down = await migrator.migrateTo(NO_MIGRATIONS);
      expect(down.error).toBeUndefined();
      expect(down.results?.map((r) => r.migrationName)).toEqual([...names].reverse());
      expect(Object.keys(await databaseTables(db))).toEqual([]);
      expect(await migrateToLatest(db)).toEqual(names);
      expect(Object.keys(await databaseTables(db)).length).toBeGreaterThan(20);
    } finally {
      await db.destroy();
    }
  });
});
