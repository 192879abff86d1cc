import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DECISIONS = path.join(ROOT, 'docs/decisions.md');

/** A citation: `D` and a number, not inside a longer word or id (`D2`, not `UUID2` or `0xD2`). */
const CITATION = /(?<![A-Za-z0-9_-])D(\d{1,3})(?![A-Za-z0-9_])/g;

/** Every decision docs/decisions.md defines, by its `**D<n> Title.**` entry. */
function defined(): Set<number> {
  return new Set([...readFileSync(DECISIONS, 'utf8').matchAll(/^- \*\*D(\d+) /gm)].map((m) => Number(m[1])));
}

/** The tracked text files of the repository (not the lock file), with the decisions they cite. */
function citations(): Map<number, string[]> {
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter((f) => f && !/(^|\/)pnpm-lock\.yaml$|\.(png|ico|woff2?)$/.test(f));
  const cited = new Map<number, string[]>();
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(path.join(ROOT, file), 'utf8');
    } catch {
      continue; // listed but not in the work tree (deleted, not yet committed)
    }
    for (const m of text.matchAll(CITATION)) {
      const n = Number(m[1]);
      cited.set(n, [...(cited.get(n) ?? []), file]);
    }
  }
  return cited;
}

describe('docs/decisions.md', () => {
  it('defines every decision the repository cites, in code, tests, scripts and docs', () => {
    const known = defined();
    const missing = [...citations()]
      .filter(([n]) => !known.has(n))
      .map(([n, files]) => `D${n} (cited in ${[...new Set(files)].slice(0, 3).join(', ')})`);
    expect(missing).toEqual([]);
  });

  it('numbers its decisions once each, from D1 up without gaps', () => {
    const numbers = [...readFileSync(DECISIONS, 'utf8').matchAll(/^- \*\*D(\d+) /gm)].map((m) => Number(m[1]));
    expect(new Set(numbers).size).toBe(numbers.length);
    const max = Math.max(...numbers);
    expect([...numbers].sort((a, b) => a - b)).toEqual(Array.from({ length: max }, (_, i) => i + 1));
  });

  it('is what the citation check reads: a number it does not define is reported', () => {
    // Written so that this file does not itself cite an undefined number.
    const text = `see D2 and D${999} (not 0xD2, UUID4 or D2x)`;
    expect([...text.matchAll(CITATION)].map((m) => m[1])).toEqual(['2', '999']);
  });
});
