import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * The suites that send what no client should (malformed JSON, forged ids, another store's
 * data): their answers are refusals of every shape, read raw on purpose.
 */
const HOSTILE_INPUT = [
  'server/test/suites/hostile-input.test.ts',
  'server/test/suites/security.test.ts',
  'server/test/suites/tenant-isolation.test.ts',
  'server/test/harness/isolation-cases.ts',
  'server/test/operations/parser-refusals.test.ts',
  'server/test/operations/json-body.test.ts',
];

/** At most this many raw casts elsewhere: a test reads an answer through the SDK or `jsonOf`/`dataOf` (harness/json.ts). */
const MAX_RAW_CASTS = 10;

function files(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(`${dir}/${e.name}`) : e.name.endsWith('.ts') ? [`${dir}/${e.name}`] : [],
  );
}

describe('server tests read answers typed', () => {
  it(`at most ${MAX_RAW_CASTS} raw \`json() as\` casts outside the hostile-input suites`, () => {
    const casts = files('server/test')
      .filter((f) => !HOSTILE_INPUT.includes(f))
      .flatMap((f) =>
        readFileSync(path.join(ROOT, f), 'utf8')
          .split('\n')
          .flatMap((line, i) => (/\.json\(\)\)* as\b/.test(line) ? [`${f}:${i + 1}`] : [])),
      );
    expect(casts.length, casts.join('\n')).toBeLessThanOrEqual(MAX_RAW_CASTS);
    for (const f of HOSTILE_INPUT) expect(readFileSync(path.join(ROOT, f), 'utf8').length).toBeGreaterThan(0);
  });
});
