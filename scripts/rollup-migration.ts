/**
 * `pnpm rollups:migration <timestamp>-<name>`: writes a new migration carrying, as text, the
 * SQL that D52's rollup definition (server/src/domain/analytics/definition.ts) emits today:
 * `ROLLUP_SQL`, which its `up` runs, and the newest earlier migration's `ROLLUP_SQL`, which
 * its `down` runs again. It lists the migration in migrations/index.ts; tables and columns
 * the change needs are written by hand into its `UP_DDL` and `DOWN_DDL` before it ships.
 * Then `pnpm migrations:digest`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { migrations } from '../migrations/index';
import { rollupSql } from '../server/src/domain/analytics/definition';
import { MIGRATION_FILE, MIGRATIONS_DIR, migrationFiles } from './migration-digests';

/** The newest migration's `ROLLUP_SQL`, if any carries one. */
export function newestRollupSql(): { name: string; sql: string } | undefined {
  const carrying = Object.entries(migrations).flatMap(([name, m]) => {
    const text = (m as { ROLLUP_SQL?: unknown }).ROLLUP_SQL;
    return typeof text === 'string' ? [{ name, sql: text }] : [];
  });
  return carrying.at(-1);
}

/** SQL as a template literal's body, which it must be as it stands. */
function raw(text: string): string {
  if (/[`\\]|\$\{/.test(text))
    throw new Error('the rollup SQL holds a backtick, a backslash or ${: it cannot be written as a template');
  return text;
}

/** The text of a new migration carrying `fresh`, whose down restores `previous`. */
export function rollupMigration(fresh: string, previous: { name: string; sql: string } | undefined): string {
  return `import { type Kysely, sql } from 'kysely';

/**
 * D52's rollups as server/src/domain/analytics/definition.ts defines them (\`pnpm
 * rollups:migration\`): the fold, the change-marking triggers, the hard-delete guards and
 * \`claim_queue()\`. Say here what changed and why.
 */

/** Emitted by the definition; server/test/analytics/rollup-definition.test.ts compares them. Never edited by hand. */
export const ROLLUP_SQL = \`${raw(fresh)}\`;

/** ${previous ? `The rollup SQL of ${previous.name}, which down restores.` : 'No earlier migration carried rollup SQL.'} */
const PREVIOUS_ROLLUP_SQL = \`${raw(previous?.sql ?? '')}\`;

/** Tables and columns the change needs, written by hand: before the generated SQL, and after it on the way down. */
const UP_DDL = '';
const DOWN_DDL = '';

export async function up(db: Kysely<any>): Promise<void> {
  await sql.raw(UP_DDL + ROLLUP_SQL).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql.raw(PREVIOUS_ROLLUP_SQL + DOWN_DDL).execute(db);
}
`;
}

/** Lists `name` in migrations/index.ts, after the last migration. */
function listInIndex(name: string): void {
  const file = path.join(MIGRATIONS_DIR, 'index.ts');
  const id = name.replace(/^\d+-/, '').replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
  const text = readFileSync(file, 'utf8')
    .replace(
      /(\nimport \* as \w+ from '\.\/\d{14}-[a-z0-9-]+';\n)(?!import)/,
      `$1import * as ${id} from './${name}';\n`,
    )
    .replace(/\n};\s*$/, `\n  '${name}': ${id},\n};\n`);
  writeFileSync(file, text);
}

if (import.meta.filename === process.argv[1]) {
  const name = process.argv[2] ?? '';
  if (!MIGRATION_FILE.test(`${name}.ts`)) throw new Error('usage: pnpm rollups:migration <14-digit timestamp>-<name>');
  if (migrationFiles().some((f) => f >= `${name}.ts`)) throw new Error(`${name} sorts before an existing migration`);
  writeFileSync(path.join(MIGRATIONS_DIR, `${name}.ts`), rollupMigration(rollupSql(), newestRollupSql()));
  listInIndex(name);
  console.log(`wrote migrations/${name}.ts and listed it in migrations/index.ts: add its UP_DDL and DOWN_DDL if any,
then \`pnpm migrations:digest\``);
}
