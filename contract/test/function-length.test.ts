import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const MAX_LINES = 80;

/**
 * Functions allowed over the limit for now, by `file:name`, up to their length when listed: the
 * check fails when one grows. Remove an entry once its function is back under the limit.
 */
const KNOWN_LONG: Record<string, number> = {};

/** A function's name as a reader finds it: its own, or the variable, property or method it is. */
function nameOf(node: ts.FunctionLikeDeclaration): string {
  if (node.name && ts.isIdentifier(node.name)) return node.name.text;
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && ts.isIdentifier(parent.name))
    return parent.name.text;
  return '(anonymous)';
}

/**
 * Every function of `text` longer than `max` lines, from its first line (the signature) to its
 * last: declarations, methods, function expressions and arrow functions, nested ones included.
 */
export function longFunctions(file: string, text: string, max = MAX_LINES): { at: string; lines: number }[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: { at: string; lines: number }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const fn = node as ts.FunctionLikeDeclaration;
      const first = source.getLineAndCharacterOfPosition(fn.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(fn.getEnd()).line;
      if (last - first + 1 > max) found.push({ at: `${file}:${nameOf(fn)}`, lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * The tracked source files of the packages and scripts. Tests, whose suites are long by nature,
 * aside, and migrations, which are never edited once shipped.
 */
function sources(): string[] {
  const listed = ['ls-files', '-z', '--', 'contract/src', 'server/src', 'sdk/src', 'scripts'];
  return execFileSync('git', listed, { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter((f) => /\.tsx?$/.test(f) && !/(^|\/)(test|generated)\//.test(f));
}

describe('function length', () => {
  // Parses every source file: seconds on a busy machine.
  it(`keeps every function of the source at ${MAX_LINES} lines or fewer`, () => {
    const over: string[] = [];
    for (const file of sources()) {
      let text: string;
      try {
        text = readFileSync(path.join(ROOT, file), 'utf8');
      } catch {
        continue; // listed but not in the work tree (deleted, not yet committed)
      }
      for (const { at, lines } of longFunctions(file, text)) {
        if (lines > (KNOWN_LONG[at] ?? MAX_LINES)) over.push(`${at} (${lines} lines)`);
      }
    }
    expect(over).toEqual([]);
  }, 60_000);

  it('measures a function from its signature to its last line, nested and arrow ones too', () => {
    const body = Array.from({ length: 3 }, (_, i) => `  const a${i} = ${i};`).join('\n');
    const text = `export function outer() {\n  const inner = () => {\n${body}\n  };\n}\n`;
    expect(longFunctions('x.ts', text, 4)).toEqual([
      { at: 'x.ts:outer', lines: 7 },
      { at: 'x.ts:inner', lines: 5 },
    ]);
    expect(longFunctions('x.ts', text, 7)).toEqual([]);
  });
});
