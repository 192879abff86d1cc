import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { afterEach, describe, expect, it } from 'vitest';
import {
  appendNew,
  DIGESTS,
  digestProblems,
  listedDigests,
  MIGRATION_FILE,
  MIGRATIONS_DIR,
  migrationFiles,
} from '../../scripts/migration-digests';

/**
 * Migrations are history. A database records the names of the migrations it ran and never runs
 * one again, so a shipped migration must keep its name and its bytes, and must not import code
 * that can change under it: what it does on a database migrated next year is what it did on the
 * day it shipped.
 */

/**
 * Imports a migration may make besides `kysely`, each with its reason. Only code that cannot
 * change qualifies: another shipped migration, pinned by its digest. Nothing else is exempt; an
 * entry no longer used fails too.
 *
 * 20261127010000-analytics-pending takes the rollup triggers' SQL generator from
 * 20261127000000-analytics-rollups (both shipped as they are; a new migration writes its SQL out
 * as text instead). 20261129000000-analytics-watermark's `down` restores exactly the pending
 * triggers that 20261127010000 made, so it calls the same pinned generator rather than a copy.
 */
const IMPORTS_OF_SHIPPED: Record<string, string[]> = {
  '20261127010000-analytics-pending.ts': ['./20261127000000-analytics-rollups'],
  '20261129000000-analytics-watermark.ts': ['./20261127000000-analytics-rollups'],
};

/**
 * Timestamps that shipped on more than one migration. Their names still differ, and Kysely runs
 * and records migrations by whole name in name order, so these run in one fixed order and stay
 * as they are: renaming one would make every database that ran it run it again under its new
 * name (and refuse the run, the recorded names no longer being a prefix of the known ones).
 * A new migration takes a timestamp of its own.
 */
const SHARED_TIMESTAMPS: Record<string, string[]> = {
  '20261126000000': ['20261126000000-claims-workspace.ts', '20261126000000-staff.ts'],
  '20261126030000': ['20261126030000-analytics.ts', '20261126030000-audit-events.ts', '20261126030000-members.ts'],
  '20261127000000': ['20261127000000-analytics-rollups.ts', '20261127000000-tracking.ts'],
};

/** Every module a file names: imports, re-exports, dynamic imports and `require` calls. */
function importsOf(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier)
      found.push((node.moduleSpecifier as ts.StringLiteral).text);
    if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(node.expression) && node.expression.text === 'require'))
    ) {
      const [arg] = node.arguments;
      found.push(arg && ts.isStringLiteral(arg) ? arg.text : '(computed)');
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('migrations are history', () => {
  it('every migration is listed in migrations/digests.tsv with the digest it shipped with', () => {
    expect(digestProblems()).toEqual([]);
  });

  it('migrations/index.ts lists every migration, once, in name order', () => {
    const index = readFileSync(path.join(MIGRATIONS_DIR, 'index.ts'), 'utf8');
    const keys = [...index.matchAll(/^ {2}'(\d{14}-[a-z0-9-]+)': \w+,$/gm)].map((m) => `${m[1]}.ts`);
    expect(keys).toEqual(migrationFiles());
  });

  it('a migration imports only kysely, or a shipped migration named in IMPORTS_OF_SHIPPED', () => {
    const listed = new Set(listedDigests().map(([file]) => file));
    const wrong: string[] = [];
    for (const file of migrationFiles()) {
      const imports = importsOf(file, readFileSync(path.join(MIGRATIONS_DIR, file), 'utf8'));
      const allowed = IMPORTS_OF_SHIPPED[file] ?? [];
      for (const spec of imports)
        if (!/^kysely(\/|$)/.test(spec) && !allowed.includes(spec)) wrong.push(`${file} imports ${spec}`);
      for (const spec of allowed) {
        if (!imports.includes(spec))
          wrong.push(`${file}: IMPORTS_OF_SHIPPED names ${spec}, which it no longer imports`);
        if (!listed.has(`${path.basename(spec)}.ts`))
          wrong.push(`${file} imports ${spec}, which is not a shipped migration`);
      }
    }
    for (const file of Object.keys(IMPORTS_OF_SHIPPED))
      if (!migrationFiles().includes(file)) wrong.push(`IMPORTS_OF_SHIPPED names ${file}, which does not exist`);
    expect(wrong).toEqual([]);
  });

  it('no two migrations share a timestamp, but for those that shipped so', () => {
    const byStamp: Record<string, string[]> = {};
    for (const file of migrationFiles()) {
      const stamp = MIGRATION_FILE.exec(file)![1]!;
      byStamp[stamp] = [...(byStamp[stamp] ?? []), file];
    }
    const shared = Object.fromEntries(Object.entries(byStamp).filter(([, files]) => files.length > 1));
    expect(shared).toEqual(SHARED_TIMESTAMPS);
  });

  describe('the digest check itself, on a copy of the folder', () => {
    let dir = '';
    const copy = () => {
      dir = mkdtempSync(path.join(tmpdir(), 'migrations-'));
      cpSync(MIGRATIONS_DIR, dir, { recursive: true, filter: (f) => !f.includes('node_modules') });
      return dir;
    };
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('fails on an edited, a removed and an unlisted migration', () => {
      copy();
      const [first, second] = migrationFiles(dir);
      appendFileSync(path.join(dir, first!), '\n');
      unlinkSync(path.join(dir, second!));
      writeFileSync(path.join(dir, '29991231000000-later.ts'), 'export {};\n');
      expect(digestProblems(dir)).toEqual([
        `${first} changed after it shipped: write a new migration instead, and restore this one`,
        `${second} shipped and is gone: a shipped migration is never removed`,
        '29991231000000-later.ts is not in migrations/digests.tsv: run `pnpm migrations:digest`',
      ]);
    });

    it('appends a new migration, and refuses one that sorts before a shipped one', () => {
      copy();
      writeFileSync(path.join(dir, '29991231000000-later.ts'), 'export {};\n');
      expect(appendNew(dir)).toEqual(['29991231000000-later.ts']);
      expect(digestProblems(dir)).toEqual([]);
      expect(readFileSync(path.join(dir, DIGESTS), 'utf8')).toMatch(/\n29991231000000-later\.ts\t[0-9a-f]{64}\n$/);
      writeFileSync(path.join(dir, '20000101000000-early.ts'), 'export {};\n');
      expect(() => appendNew(dir)).toThrow(/20000101000000-early\.ts sort\(s\) before 29991231000000-later\.ts/);
    });
  });
});
