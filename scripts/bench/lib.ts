import { type ChildProcess, spawn } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { openEmbeddedPostgres } from '../../server/src/db/embedded';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);

export interface Measured {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

/** A database for the benchmark: DATABASE_URL, or a throwaway embedded PostgreSQL. */
export async function benchDatabase(): Promise<{ url: string; stop(): Promise<void> }> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, stop: async () => {} };
  const dir = await mkdtemp(path.join(os.tmpdir(), 'protection-bench-'));
  await chmod(dir, 0o755);
  const pg = await openEmbeddedPostgres({ dataDir: dir });
  return {
    url: pg.url,
    async stop() {
      await pg.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Starts a node process with the tsx loader and waits until it prints `ready` (or the given line). */
export async function startProcess(script: string, env: NodeJS.ProcessEnv, ready = 'ready'): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: ROOT, env: { ...process.env, ...env } });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes(ready)) resolve();
    });
    child.stderr!.on('data', (d) => process.stderr.write(d));
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return child;
}

export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

export interface Target {
  name: string;
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

/**
 * Loads each target with the same autocannon settings, in alternating rounds, so a change in
 * the machine's background load during the run falls on all targets alike. Requests/second
 * is the total over all rounds; p50 and p99 are the worst round's.
 */
export async function compare(targets: Target[], rounds = 3): Promise<Measured[]> {
  const settings = (t: Target, duration: number) => ({
    url: t.url,
    method: t.method ?? 'GET',
    headers: t.headers,
    body: t.body,
    connections: CONNECTIONS,
    duration,
  });
  for (const t of targets) await autocannon(settings(t, 2));
  const totals = targets.map((t) => ({ name: t.name, requests: 0, seconds: 0, p50: 0, p99: 0, non2xx: 0, errors: 0 }));
  for (let round = 0; round < rounds; round++) {
    for (const [i, t] of targets.entries()) {
      const r = await autocannon(settings(t, Math.max(1, Math.round(DURATION_S / rounds))));
      const total = totals[i]!;
      total.requests += r.requests.total;
      total.seconds += r.duration;
      total.p50 = Math.max(total.p50, r.latency.p50);
      total.p99 = Math.max(total.p99, r.latency.p99);
      total.non2xx += r.non2xx;
      total.errors += r.errors;
    }
  }
  return totals.map((t) => ({
    name: t.name,
    rps: t.requests / t.seconds,
    p50: t.p50,
    p99: t.p99,
    non2xx: t.non2xx,
    errors: t.errors,
  }));
}

export function printTable(rows: Measured[]): void {
  const header = ['target', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors'];
  const lines = rows.map((r) => [
    r.name,
    r.rps.toFixed(0),
    r.p50.toFixed(1),
    r.p99.toFixed(1),
    String(r.non2xx),
    String(r.errors),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  process.stdout.write(`${fmt(header)}\n${lines.map(fmt).join('\n')}\n`);
}
