import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MOCKING } from '../../vitest.config';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** A module mock, a stubbed global or environment variable: what outlives a file in its worker
 * (in a test file or a harness module it imports). */
const LEAKS = /\bvi\.(mock|doMock|stubGlobal|stubEnv)\(/;

/**
 * The server test files of a worker share its modules and globals (`isolate: false`,
 * vitest.config.ts): a file that mocks a module or stubs a global must be one of MOCKING, which
 * run one process a file, or every later file of its worker would meet the mock.
 */
describe('the server test files that share a worker', () => {
  it('mock no module and stub no global, but for those that run apart', () => {
    const files = execFileSync('git', ['ls-files', 'server/test', 'sdk/test', 'scripts/test'], {
      cwd: ROOT,
      encoding: 'utf8',
    })
      .split('\n')
      .filter((f) => /\.tsx?$/.test(f));
    expect(files.length).toBeGreaterThan(100);
    const leaking = files.filter((f) => LEAKS.test(readFileSync(path.join(ROOT, f), 'utf8')));
    expect(leaking.sort()).toEqual([...MOCKING].sort());
  });
});
