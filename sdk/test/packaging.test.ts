import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { SCOPES } from '@protection-service/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, createOwner, installWithToken } from '../../server/test/harness/fixtures';
import { startTestServer } from '../../server/test/harness/server';
import { createClient } from '../src/index';
import { type Fault, startFaultProxy } from './harness/fault-proxy';

const exec = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const SDK = path.join(ROOT, 'sdk');
/** tsup is the SDK's own dev dependency; publint and attw are the workspace's. */
const bin = (name: string, dir = ROOT) => path.join(dir, 'node_modules/.bin', name);

/**
 * CI runs this file again on each other Node line the SDK supports (20.3 and later) with
 * SDK_RUNTIME_ONLY=1, on the package its build step made: there only what runs the package
 * counts, since what tsup, the compiler and the package linters say does not depend on the Node
 * line that runs them.
 */
const runtimeOnly = process.env.SDK_RUNTIME_ONLY === '1';
const packageCheck = it.skipIf(runtimeOnly);

/** What tsup builds the package from. */
const INPUTS = [
  'sdk/src',
  'contract/src',
  'sdk/tsup.config.ts',
  'sdk/package.json',
  'contract/package.json',
  'tsconfig.base.json',
];

/** Every built file the package's `exports` name (each entry, ESM and CJS, code and types). */
async function builtFiles(): Promise<string[]> {
  const { exports } = JSON.parse(await readFile(path.join(SDK, 'package.json'), 'utf8')) as { exports: unknown };
  const named = (value: unknown): string[] =>
    typeof value === 'string' ? [value] : Object.values(value as Record<string, unknown>).flatMap(named);
  return named(exports)
    .filter((f) => f.startsWith('./dist/'))
    .map((f) => path.join(SDK, f));
}

/** When a file last changed (0 when it does not exist). */
const changed = (file: string) =>
  stat(file).then(
    (s) => s.mtimeMs,
    () => 0,
  );

/** The latest change of the files named, and of every file under the folders named. */
async function newest(paths: string[]): Promise<number> {
  const files = await Promise.all(
    paths.map(async (p) => {
      const isFolder = await stat(p).then(
        (s) => s.isDirectory(),
        () => false,
      );
      if (!isFolder) return [p];
      const entries = await readdir(p, { recursive: true, withFileTypes: true });
      return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
    }),
  );
  return Math.max(0, ...(await Promise.all(files.flat().map(changed))));
}

/** The built package is there and newer than everything it is built from (CI's build step made it). */
async function builtPackageIsCurrent(): Promise<boolean> {
  const built = await Promise.all((await builtFiles()).map(changed));
  return built.length > 0 && Math.min(...built) > (await newest(INPUTS.map((p) => path.join(ROOT, p))));
}

// The package as its sources are now: built again unless an up-to-date build is there already
// (tsup with declarations takes about 30 s of CPU on a 2-core machine).
beforeAll(async () => {
  if (!runtimeOnly && !(await builtPackageIsCurrent())) await exec(bin('tsup', SDK), [], { cwd: SDK });
}, 120_000);

/** The published package: built by tsup to ESM + CJS + declarations, checked by publint and attw. */
describe('@protection-service/sdk package', () => {
  // The checks' own folders (runtime-only runs make none, and may run beside a run that does).
  afterAll(() => (runtimeOnly ? undefined : rm(path.join(SDK, '.tmp'), { recursive: true, force: true })));

  packageCheck(
    'passes publint',
    async () => {
      const { stdout } = await exec(bin('publint'), ['--strict'], { cwd: SDK });
      expect(stdout).not.toMatch(/error|warning/i);
    },
    60_000,
  );

  packageCheck(
    'passes @arethetypeswrong/cli for every resolution mode',
    async () => {
      const { stdout } = await exec(bin('attw'), ['--pack', '.', '--format', 'json'], {
        cwd: SDK,
        maxBuffer: 32 << 20,
      });
      const report = JSON.parse(stdout) as { analysis: { problems: unknown[] } };
      expect(report.analysis.problems).toEqual([]);
    },
    120_000,
  );

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
    expect(esm.stdout.trim()).toBe('function 18');
    const pkg = (await import(path.join(SDK, 'package.json'), { with: { type: 'json' } })).default as {
      dependencies: Record<string, string>;
    };
    expect(Object.keys(pkg.dependencies)).not.toContain('@protection-service/contract');
    for (const file of ['index.js', 'index.cjs', 'index.d.ts', 'index.d.cts']) {
      expect(await readFile(path.join(SDK, 'dist', file), 'utf8')).not.toContain('@protection-service/contract');
    }
  }, 60_000);

  packageCheck('publishes light declarations: under 400 KB, with no zod or ts-rest types in them', async () => {
    for (const file of ['index.d.ts', 'index.d.cts']) {
      const text = await readFile(path.join(SDK, 'dist', file), 'utf8');
      expect(Buffer.byteLength(text)).toBeLessThan(400 * 1024);
      expect(text).not.toMatch(/from ['"](zod|@ts-rest\/core)['"]|\bZod[A-Z]\w*</);
    }
  });

  packageCheck(
    'types a consumer, from ESM and from CJS, through the package exports',
    async () => {
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
    },
    120_000,
  );

  packageCheck(
    "reports a consumer's mistakes (wrong field, wrong type, misspelt operation) at the call",
    async () => {
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
    },
    120_000,
  );
});

/**
 * The defaults a partner gets from the published package: a client created without `retry`
 * retries twice (DEFAULT_RETRY, as the README and JSDoc say), and every token POST carries an
 * Idempotency-Key, so a lost answer to a committed claim is replayed, not filed twice. Packed
 * with `pnpm pack`, installed into a fresh project outside the workspace, run as ESM and CJS
 * through a fault-injecting proxy in front of the real server.
 */
describe('@protection-service/sdk defaults, from the packed package', () => {
  let project: string;

  beforeAll(async () => {
    project = await mkdtemp(path.join(os.tmpdir(), 'sdk-consumer-'));
    await exec('pnpm', ['pack', '--pack-destination', project], { cwd: SDK });
    const tarball = (await exec('ls', [project])).stdout.trim();
    await writeFile(path.join(project, 'package.json'), '{"name":"consumer","private":true}\n');
    await exec('pnpm', ['add', '--prefer-offline', `./${tarball}`], { cwd: project });
  }, 180_000);
  afterAll(() => rm(project, { recursive: true, force: true }));

  /** What a partner's program does: four reads and one claim, with nothing but baseUrl and a token. */
  const program = (load: string) => `${load}
const client = createClient({ baseUrl: process.env.BASE_URL, accessToken: process.env.TOKEN });
const run = async () => {
  const out = [];
  for (let i = 0; i < 4; i++) out.push((await client.settings.get()).status);
  const filed = await client.claims.file({
    params: { sourceOrderId: process.env.ORDER_ID },
    body: {
      email: 'shopper@example.com',
      salesChannel: 'ONLINE',
      claimCategory: 'SHIPPING',
      resolution: { desiredMethod: 'REFUND' },
      fulfillmentIssues: [{ issues: [{ issueType: 'DAMAGED', sourceItemId: 'li1', quantity: 1 }] }],
    },
  });
  out.push(filed.status, filed.headers.get('idempotent-replayed'));
  console.log(JSON.stringify(out));
};
run();
`;

  for (const [format, file, load] of [
    ['ESM', 'consumer.mjs', "import { createClient } from '@protection-service/sdk';"],
    ['CommonJS', 'consumer.cjs', "const { createClient } = require('@protection-service/sdk');"],
  ] as const) {
    it(`retries 503 (with and without Retry-After), 429, 502 then 504, a dropped connection and a lost claim answer (${format})`, async () => {
      const server = await startTestServer();
      const proxy = await startFaultProxy(server.baseUrl);
      try {
        const owner = await createOwner(server.db, `packed-${format}`);
        const app = await createApp(server, owner.user.id, { requestedScopes: [...SCOPES] });
        const { accessToken } = await installWithToken(server, app.clientId, owner.store.id, [...SCOPES]);
        const sourceOrderId = `packed-${format}`;
        const direct = createClient({ baseUrl: server.baseUrl, accessToken });
        const order = await direct.orders.upsert({
          params: { sourceOrderId },
          body: {
            sourceOrderNumber: '#1',
            currency: 'USD',
            platformId: 'api',
            total: 50,
            sourceCreatedAt: '2026-01-31T12:00:00.000Z',
            lineItems: [
              {
                ...{ sourceItemId: 'li1', sourceProductId: 'p1', sourceVariantId: 'v1', name: 'Mug', sku: 'MUG' },
                ...{ quantity: 1, price: 50, isShippable: true },
              },
            ],
          },
        });
        expect(order.status).toBe(200);

        const gateway = (status: number, headers: Record<string, string> = {}): Fault => ({ status, headers });
        const settingsFaults: Fault[] = [
          ...[gateway(503), gateway(503, { 'retry-after': '1' }), 'pass'],
          ...[gateway(429), 'pass'],
          ...[gateway(502), gateway(504), 'pass'],
          ...['reset', 'pass'],
        ] as Fault[];
        proxy.inject(settingsFaults, (m, p) => m === 'GET' && p === '/v2/settings');
        proxy.inject(['drop-answer'], (m, p) => m === 'POST' && p === `/v1/claims/${sourceOrderId}`);

        await writeFile(path.join(project, file), program(load));
        const started = performance.now();
        const { stdout } = await exec(process.execPath, [file], {
          cwd: project,
          env: { ...process.env, BASE_URL: proxy.baseUrl, TOKEN: accessToken, ORDER_ID: sourceOrderId },
        });
        expect(JSON.parse(stdout)).toEqual([200, 200, 200, 200, 200, 'true']);
        // The 503 with Retry-After: 1 was waited out, not raced through.
        expect(performance.now() - started).toBeGreaterThanOrEqual(950);

        const reads = proxy.seen.filter((s) => s.path === '/v2/settings').map((s) => s.fault);
        expect(reads).toEqual(settingsFaults);
        const filings = proxy.seen.filter((s) => s.method === 'POST');
        expect(filings.map((s) => s.fault)).toEqual(['drop-answer', 'pass']);
        const keys = filings.map((s) => s.headers['idempotency-key']);
        expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
        expect(keys[1]).toBe(keys[0]);
        const claims = await direct.claims.list({ query: { sourceOrderId } });
        expect(claims.status === 200 && claims.body.edges).toHaveLength(1);
      } finally {
        await proxy.close();
        await server.close();
      }
    }, 60_000);
  }
});

/**
 * The SDK takes `zod` and `@ts-rest/core` as caret ranges, so a partner's app that has them
 * already shares its copy: the packed package, installed with the lowest and then the highest
 * version of both that its ranges allow, verifies a signed webhook (zod parses it) and calls
 * the real server (ts-rest builds the request, zod checks what it sends).
 */
describe('@protection-service/sdk on the lowest and highest zod and @ts-rest/core it allows', () => {
  const ranges = async () =>
    (
      (await import(path.join(SDK, 'package.json'), { with: { type: 'json' } })).default as {
        dependencies: Record<'zod' | '@ts-rest/core', string>;
      }
    ).dependencies;

  const program = `import { createHmac } from 'node:crypto';
import { createRequire } from 'node:module';
import { createClient, verifyWebhook } from '@protection-service/sdk';
const require = createRequire(import.meta.url);
const versions = ['zod', '@ts-rest/core'].map((p) => require(require.resolve(p + '/package.json', { paths: [require.resolve('@protection-service/sdk')] })).version);
const secret = 'svc_whsec_test';
const raw = JSON.stringify({ id: 'ev_1', topic: 'claim/denied', apiVersion: '2027-01-15', livemode: true,
  createdAt: new Date().toISOString(), body: { claimId: 'c', storeId: 's', sourceOrderId: 'o', reason: 'OTHER' } });
const timestamp = String(Math.floor(Date.now() / 1000));
const signature = 'v1,' + createHmac('sha256', secret).update('ev_1.' + timestamp + '.' + raw).digest('base64');
const headers = { 'x-webhook-id': 'ev_1', 'x-webhook-timestamp': timestamp, 'x-webhook-signature': signature };
const event = await verifyWebhook({ secret, headers, body: raw });
const tampered = await verifyWebhook({ secret, headers, body: raw.replace('OTHER', 'NOPE') }).then(() => 'accepted', (e) => e.reason);
const client = createClient({ baseUrl: process.env.BASE_URL });
const quote = await client.public.getInsurance({ query: { store_url: 'nowhere.example.com', subtotal: 100 } });
console.log(JSON.stringify({ versions, topic: event.topic, tampered, quote: quote.status }));
`;

  it('runs both ends of its ranges', async () => {
    const server = await startTestServer();
    const project = await mkdtemp(path.join(os.tmpdir(), 'sdk-ranges-'));
    try {
      await exec('pnpm', ['pack', '--pack-destination', project], { cwd: SDK });
      const tarball = (await exec('ls', [project])).stdout.trim();
      await writeFile(path.join(project, 'package.json'), '{"name":"consumer","private":true,"type":"module"}\n');
      await writeFile(path.join(project, 'consumer.js'), program);
      const deps = await ranges();
      for (const [zod, tsRest] of <[string, string][]>[
        // The lowest: the floor each caret names; the highest: what the ranges resolve to today.
        [deps.zod.replace(/^\^/, ''), deps['@ts-rest/core'].replace(/^\^/, '')],
        [deps.zod, deps['@ts-rest/core']],
      ]) {
        await exec('pnpm', ['add', '--prefer-offline', `./${tarball}`, `zod@${zod}`, `@ts-rest/core@${tsRest}`], {
          cwd: project,
        });
        const { stdout } = await exec(process.execPath, ['consumer.js'], {
          cwd: project,
          env: { ...process.env, BASE_URL: server.baseUrl },
        });
        const out = JSON.parse(stdout) as { versions: string[]; topic: string; tampered: string; quote: number };
        expect(out, `zod ${zod}, @ts-rest/core ${tsRest}`).toMatchObject({
          topic: 'claim/denied',
          tampered: 'signature',
          quote: 404,
        });
        if (!zod.startsWith('^')) expect(out.versions).toEqual([zod, tsRest]);
        else expect(out.versions.every((v) => /^3\./.test(v))).toBe(true);
      }
    } finally {
      await rm(project, { recursive: true, force: true });
      await server.close();
    }
  }, 240_000);
});
