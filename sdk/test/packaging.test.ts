import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';

const exec = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const SDK = path.join(ROOT, 'sdk');
const bin = (name: string) => path.join(ROOT, 'node_modules/.bin', name);

/** The published package: built by tsup to ESM + CJS + declarations, checked by publint and attw. */
describe('@protection-service/sdk package', () => {
  beforeAll(async () => {
    await exec(bin('tsup'), [], { cwd: SDK });
  }, 120_000);

  it('passes publint', async () => {
    const { stdout } = await exec(bin('publint'), ['--strict'], { cwd: SDK });
    expect(stdout).not.toMatch(/error|warning/i);
  }, 60_000);

  it('passes @arethetypeswrong/cli for every resolution mode', async () => {
    const { stdout } = await exec(bin('attw'), ['--pack', '.', '--format', 'json'], { cwd: SDK, maxBuffer: 32 << 20 });
    const report = JSON.parse(stdout) as { analysis: { problems: unknown[] } };
    expect(report.analysis.problems).toEqual([]);
  }, 120_000);

  it('loads from require() and import(), and bundles the contract instead of depending on it', async () => {
    const cjs = await exec(process.execPath, ['-e', "console.log(typeof require('./dist/index.cjs').createClient)"], {
      cwd: SDK,
    });
    expect(cjs.stdout.trim()).toBe('function');
    const esm = await exec(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "import('./dist/index.js').then(m => console.log(typeof m.createClient, Object.keys(m.contract).length))",
      ],
      { cwd: SDK },
    );
    expect(esm.stdout.trim()).toBe('function 13');
    const pkg = (await import(path.join(SDK, 'package.json'), { with: { type: 'json' } })).default as {
      dependencies: Record<string, string>;
    };
    expect(Object.keys(pkg.dependencies)).not.toContain('@protection-service/contract');
  }, 60_000);
});
