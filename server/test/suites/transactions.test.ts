import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../../..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sources(full);
    return /\.tsx?$/.test(e.name) ? [full] : [];
  });
}

/**
 * Every transaction of the service and its scripts is begun by `transact` (server/src/db/
 * transact.ts), so that what a change hands to other processes after its commit (delivery
 * jobs, D32; e-mails, D42) leaves at once. One begun any other way still commits correctly,
 * but its after-commit work waits for the sweep: seconds late, and easy to miss.
 */
describe('transactions', () => {
  it('are begun by transact() only', () => {
    const offenders = [...sources(path.join(ROOT, 'server/src')), ...sources(path.join(ROOT, 'scripts'))]
      .filter((f) => !f.endsWith(path.join('db', 'transact.ts')))
      .filter((f) => /\.transaction\(\)/.test(readFileSync(f, 'utf8')))
      .map((f) => path.relative(ROOT, f));
    expect(offenders).toEqual([]);
  });
});
