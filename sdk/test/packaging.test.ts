import { execFile } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const exec = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const SDK = path.join(ROOT, 'sdk');
/** tsup is the SDK's own dev dependency; publint and attw are the workspace's. */
const bin = (name: string, dir = ROOT) => path.join(dir, 'node_modules/.bin', name);

/** The published package: built by tsup to ESM + CJS + declarations, checked by publint and attw. */
describe('@protection-service/sdk package', () => {
  beforeAll(async () => {
    await exec(bin('tsup', SDK), [], { cwd: SDK });
  }, 120_000);
  afterAll(() => rm(path.join(SDK, '.tmp'), { recursive: true, force: true }));

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
        "import('./dist/index.js').then(m => console.log(typeof m.createClient, Object.keys(m.createClient({ baseUrl: 'http://x' })).length))",
      ],
      { cwd: SDK },
    );
    expect(esm.stdout.trim()).toBe('function 13');
    const pkg = (await import(path.join(SDK, 'package.json'), { with: { type: 'json' } })).default as {
      dependencies: Record<string, string>;
    };
    expect(Object.keys(pkg.dependencies)).not.toContain('@protection-service/contract');
    for (const file of ['index.js', 'index.cjs', 'index.d.ts', 'index.d.cts']) {
      expect(await readFile(path.join(SDK, 'dist', file), 'utf8')).not.toContain('@protection-service/contract');
    }
  }, 60_000);

  it('publishes light declarations: under 400 KB, with no zod or ts-rest types in them', async () => {
    for (const file of ['index.d.ts', 'index.d.cts']) {
      const text = await readFile(path.join(SDK, 'dist', file), 'utf8');
      expect(Buffer.byteLength(text)).toBeLessThan(400 * 1024);
      expect(text).not.toMatch(/from ['"](zod|@ts-rest\/core)['"]|\bZod[A-Z]\w*</);
    }
  });

  it('types a consumer, from ESM and from CJS, through the package exports', async () => {
    // Inside the package directory, `@protection-service/sdk` resolves to itself through
    // `exports`, as it would from node_modules; no skipLibCheck, so the declarations are checked.
    const dir = path.join(SDK, '.tmp', 'consumer');
    await mkdir(dir, { recursive: true });
    const source = `import { createClient, ProtectionApiError, type TInsuranceQuote, unwrap } from '@protection-service/sdk';

const client = createClient({ baseUrl: 'http://localhost', timeoutMs: 5_000 });
export async function read(): Promise<TInsuranceQuote | string> {
  const res = await client.public.getInsurance({ query: { store_url: 'shop.example.com', subtotal: 100 } });
  if (res.status === 404) return res.body.message;
  try {
    return unwrap(res);
  } catch (e) {
    if (e instanceof ProtectionApiError) return \`\${e.status} \${e.body.error} \${e.requestId}\`;
    throw e;
  }
}
// @ts-expect-error not a route
client.public.nope;
`;
    await writeFile(path.join(dir, 'esm.mts'), source);
    await writeFile(path.join(dir, 'cjs.cts'), source);
    try {
      await exec(
        bin('tsc'),
        [
          ...['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext'],
          ...['--target', 'es2022', '--lib', 'es2022,dom', '--types', 'node'],
          ...['esm.mts', 'cjs.cts'],
        ],
        { cwd: dir },
      );
    } catch (e) {
      throw new Error(`tsc failed:\n${(e as { stdout?: string }).stdout ?? e}`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it("reports a consumer's mistakes (wrong field, wrong type, misspelt operation) at the call", async () => {
    const dir = path.join(SDK, '.tmp', 'misuse');
    await mkdir(dir, { recursive: true });
    const fixture = await readFile(path.join(SDK, 'test/fixtures/consumer-errors.ts'), 'utf8');
    await writeFile(path.join(dir, 'misuse.ts'), fixture);
    const expected = fixture
      .split('\n')
      .flatMap((line, i) => [...line.matchAll(/expect (TS\d+)/g)].map((m) => `${i + 1} ${m[1]}`));
    expect(expected.length).toBeGreaterThanOrEqual(8);
    const tsc = await exec(
      bin('tsc'),
      [
        ...['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext'],
        ...['--target', 'es2022', '--lib', 'es2022,dom', '--types', 'node', '--pretty', 'false', 'misuse.ts'],
      ],
      { cwd: dir },
    ).then(
      () => ({ stdout: '' }),
      (e: { stdout: string }) => e,
    );
    await rm(dir, { recursive: true, force: true });
    const reported = [...tsc.stdout.matchAll(/^misuse\.ts\((\d+),\d+\): error (TS\d+)/gm)].map(
      (m) => `${m[1]} ${m[2]}`,
    );
    expect(reported, tsc.stdout).toEqual(expected);
  }, 120_000);
});
