/**
 * Migrations are history: a database that ran a migration records its name, and never runs it
 * again, so a shipped migration edited afterwards means two databases that ran "the same"
 * migration hold different schemas. `migrations/digests.tsv` lists every shipped migration with
 * the SHA-256 of its file; `contract/test/migrations.test.ts` fails on a listed file whose
 * bytes changed, a listed file gone, or a migration not listed.
 *
 * `pnpm migrations:digest` appends the migrations not listed yet (a new migration sorts after
 * every listed one, or Kysely's migrator refuses to run it on a database that ran a later one);
 * it never rewrites a listed line. `pnpm migrations:digest --check` only checks, as the test does.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export const MIGRATIONS_DIR = path.resolve(import.meta.dirname, '../migrations');
/** The digest list's file name, in the migrations folder. */
export const DIGESTS = 'digests.tsv';

/** A migration's file name: `<14-digit timestamp>-<name>.ts`. */
export const MIGRATION_FILE = /^(\d{14})-[a-z0-9-]+\.ts$/;

/** The migration files in the folder, in name order (the order Kysely runs them in). */
export function migrationFiles(dir = MIGRATIONS_DIR): string[] {
  return readdirSync(dir)
    .filter((f) => MIGRATION_FILE.test(f))
    .sort();
}

export function digestOf(file: string, dir = MIGRATIONS_DIR): string {
  return createHash('sha256')
    .update(readFileSync(path.join(dir, file)))
    .digest('hex');
}

/** The listed digests, in the order they were appended; lines starting with `#` are comments. */
export function listedDigests(dir = MIGRATIONS_DIR): [file: string, sha256: string][] {
  return readFileSync(path.join(dir, DIGESTS), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('#'))
    .map((line) => {
      const [file, sha256, ...rest] = line.split('\t');
      if (!file || !sha256 || rest.length) throw new Error(`${DIGESTS}: not "<file>\\t<sha256>": ${line}`);
      return [file, sha256];
    });
}

/** What is wrong with the migrations against their digests: an empty list when nothing is. */
export function digestProblems(dir = MIGRATIONS_DIR): string[] {
  const listed = listedDigests(dir);
  const files = migrationFiles(dir);
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const [file, sha256] of listed) {
    if (seen.has(file)) problems.push(`${file} is listed twice in migrations/digests.tsv`);
    seen.add(file);
    if (!files.includes(file)) problems.push(`${file} shipped and is gone: a shipped migration is never removed`);
    else if (digestOf(file, dir) !== sha256)
      problems.push(`${file} changed after it shipped: write a new migration instead, and restore this one`);
  }
  for (const file of files)
    if (!seen.has(file)) problems.push(`${file} is not in migrations/digests.tsv: run \`pnpm migrations:digest\``);
  return problems;
}

/** Appends the unlisted migrations; refuses one that sorts before a listed one. */
export function appendNew(dir = MIGRATIONS_DIR): string[] {
  const listed = listedDigests(dir).map(([file]) => file);
  const newest = [...listed].sort().at(-1) ?? '';
  const fresh = migrationFiles(dir).filter((f) => !listed.includes(f));
  const early = fresh.filter((f) => f <= newest);
  if (early.length)
    throw new Error(
      `${early.join(', ')} sort(s) before ${newest}, which shipped: give the new migration a later timestamp`,
    );
  for (const file of fresh) appendFileSync(path.join(dir, DIGESTS), `${file}\t${digestOf(file, dir)}\n`);
  return fresh;
}

if (import.meta.filename === process.argv[1]) {
  if (process.argv.includes('--check')) {
    const problems = digestProblems();
    for (const p of problems) console.error(p);
    process.exit(problems.length ? 1 : 0);
  }
  const added = appendNew();
  console.log(added.length ? `listed ${added.join(', ')}` : 'every migration is listed');
}
