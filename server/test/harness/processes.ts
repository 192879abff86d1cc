import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { freePort } from '../../src/free-port';

/** The repository root: where `pnpm start` and `pnpm cli` run. */
export const ROOT = path.resolve(import.meta.dirname, '../../..');

/** As `pnpm start` and `pnpm cli` run: one node process with the tsx loader. */
export const NODE_ARGS = ['--conditions=source', '--import', 'tsx'];

/** Runs a TypeScript entry point of the repository to its end. */
export function runScript(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...NODE_ARGS, ...args], { cwd: ROOT, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * A server (`server/src/main.ts`) or delivery (`server/src/worker.ts`) process of the
 * repository: its supervisor, which runs the process that serves (or delivers).
 */
export interface ServiceProcess {
  /** The supervisor. */
  child: ChildProcess;
  /** The process id of the first child that said it was serving (or delivering); undefined in pretty logs. */
  servingPid: number | undefined;
  /** Everything it printed so far, stdout and stderr. */
  output(): string;
  /** The pids of every child that said it was serving (or delivering), in order. */
  servingPids(): number[];
  /** SIGKILL to the serving child and the supervisor at once, as a machine's crash would. */
  crash(): Promise<void>;
  /** SIGTERM, and wait for the exit. */
  stop(): Promise<void>;
}

/**
 * Starts `pnpm start` (`entry: 'main'`) or `pnpm worker` on a test database and resolves once
 * it says it is serving (or delivering); rejects with its output when it exits or takes a
 * minute. `env` comes last, so it may replace any default.
 */
export async function startServiceProcess(options: {
  databaseUrl: string;
  secretKey: Buffer;
  entry: 'worker' | 'main';
  port?: number;
  env?: NodeJS.ProcessEnv;
}): Promise<ServiceProcess> {
  const entry = options.entry === 'main' ? 'server/src/main.ts' : 'server/src/worker.ts';
  const child = spawn(process.execPath, [...NODE_ARGS, entry], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: options.databaseUrl,
      SECRET_KEY: options.secretKey.toString('base64url'),
      HOST: '127.0.0.1',
      PORT: String(options.port ?? 0),
      LOG_LEVEL: 'info',
      ...options.env,
    },
  });
  let output = '';
  const ready = options.entry === 'worker' ? 'delivering webhooks' : 'protection service listening';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${entry} did not start:\n${output}`)), 110_000);
    const onData = (d: Buffer) => {
      output += d;
      if (output.includes(ready)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${entry} exited with ${code}:\n${output}`));
    });
  });
  const servingPids = () =>
    output
      .split('\n')
      .filter((line) => line.includes(ready))
      .flatMap((line) => {
        // JSON lines; a LOG_FORMAT=pretty process names no pid on the same line.
        const pid = /"pid":(\d+)/.exec(line)?.[1];
        return pid ? [Number(pid)] : [];
      });
  const servingPid = servingPids()[0];
  return {
    child,
    servingPid,
    output: () => output,
    servingPids,
    async crash() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      for (const pid of servingPids()) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {}
      }
      child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      });
    },
  };
}

/**
 * `count` server processes (`pnpm start`) on one database, each on a free port, started two
 * at a time (more starting together on a small machine could each take past their minute).
 * Answers them with their base URLs, in the same order.
 */
export async function startApiProcesses(
  count: number,
  options: { databaseUrl: string; secretKey: Buffer; env?: NodeJS.ProcessEnv },
): Promise<{ processes: ServiceProcess[]; urls: string[] }> {
  const processes: ServiceProcess[] = [];
  const urls: string[] = [];
  for (let i = 0; i < count; i += 2) {
    const ports = await Promise.all(Array.from({ length: Math.min(2, count - i) }, () => freePort()));
    const started = await Promise.allSettled(
      ports.map((port) => startServiceProcess({ ...options, entry: 'main', port })),
    );
    for (const s of started) if (s.status === 'fulfilled') processes.push(s.value);
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) {
      // None left running behind a failed start.
      await Promise.all(processes.map((p) => p.stop()));
      throw failed.reason;
    }
    urls.push(...ports.map((port) => `http://127.0.0.1:${port}`));
  }
  return { processes, urls };
}

/**
 * A failing login whose body is still arriving when `child` (a server) gets SIGTERM: a
 * draining server must still answer it. Resolves with the status.
 */
export function loginAcrossSigterm(url: string, child: ChildProcess, email: string): Promise<number> {
  const body = JSON.stringify({ email, password: 'wrong password' });
  return new Promise<number>((resolve, reject) => {
    const req = http.request(`${url}/v1/auth/login`, {
      method: 'POST',
      agent: false,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.write(body.slice(0, 10));
    setTimeout(() => {
      child.kill('SIGTERM');
      setTimeout(() => req.end(body.slice(10)), 300);
    }, 200);
  });
}
