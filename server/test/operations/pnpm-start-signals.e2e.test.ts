import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/free-port';
import { ROOT } from '../harness/processes';

/** The supervisor's bound on a stop: every worker's drain (10 s, D46) and the 5 s it grants after. */
const STOP_BOUND_MS = 15_000;

/** A process's parent and state from /proc, or undefined once it is gone (a zombie counts as gone). */
function procStat(pid: number): { ppid: number; state: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // `pid (comm) state ppid …`; comm may hold spaces and parentheses, so read after the last `)`.
    const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return state === 'Z' ? undefined : { ppid: Number(ppid), state: state! };
  } catch {
    return undefined;
  }
}

/** `root` and every process below it, from /proc. */
function tree(root: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procStat(Number(entry));
    if (stat) parents.set(Number(entry), stat.ppid);
  }
  const out = [root];
  for (let i = 0; i < out.length; i++) {
    for (const [pid, ppid] of parents) if (ppid === out[i]) out.push(pid);
  }
  return out;
}

/**
 * README's command as a process manager runs it: `pnpm start` on its own ports and DATA_DIR
 * (the embedded PostgreSQL), stopped by a signal to the `pnpm` process alone. pnpm's script
 * shell and the launcher of the Node that `pnpm install` brings pass no signal on; the service
 * still drains and stops, with its database, and leaves no process behind (D46).
 */
describe.skipIf(process.platform !== 'linux')('pnpm start stopped by a signal to pnpm', () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  let url: string;
  let pnpm: ChildProcess | undefined;
  let log = '';
  /** Every process of the current start, for the test to check and, should it fail, to clean up. */
  let running: number[] = [];

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'protection-signals-'));
    await chmod(dataDir, 0o755);
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    const { DATABASE_URL: _ignored, npm_lifecycle_event: _script, ...rest } = process.env;
    // The PATH of a shell or a process manager: not the one vitest runs under, whose
    // node_modules/.bin would put the repository's `node` launcher in front of pnpm itself.
    const PATH = (rest.PATH ?? '')
      .split(path.delimiter)
      .filter((dir) => !dir.includes('node_modules'))
      .join(path.delimiter);
    env = { ...rest, PATH, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info' };
  });
  afterAll(async () => {
    for (const pid of [...running, ...(pnpm?.pid ? tree(pnpm.pid) : [])].reverse()) {
      if (procStat(pid)) process.kill(pid, 'SIGKILL');
    }
    await rm(dataDir, { recursive: true, force: true });
  });

  async function startPnpm(): Promise<void> {
    log = '';
    pnpm = spawn('pnpm', ['start'], { cwd: ROOT, env });
    pnpm.stdout!.on('data', (d) => {
      log += d;
    });
    pnpm.stderr!.on('data', (d) => {
      log += d;
    });
    await expect
      .poll(
        async () => {
          if (pnpm!.exitCode !== null) throw new Error(`pnpm start exited with ${pnpm!.exitCode}:\n${log}`);
          return fetch(`${url}/readyz`).then(
            (r) => r.status,
            () => 0,
          );
        },
        { timeout: 90_000, interval: 250 },
      )
      .toBe(200);
  }

  it.each([
    'SIGTERM',
    'SIGINT',
    // pnpm killed outright: nothing is passed on, and the supervisor sees its parent gone.
    'SIGKILL',
  ] as const)(
    'ends on %s to the pnpm process: supervisor, workers and PostgreSQL gone within the drain time',
    async (signal) => {
      await startPnpm();
      const postmaster = Number(readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
      running = tree(pnpm!.pid!);
      // pnpm, its shell(s), the supervisor, a worker, the postmaster and PostgreSQL's own processes.
      expect(running).toContain(postmaster);
      expect(tree(postmaster).length).toBeGreaterThan(1);
      expect(running.length).toBeGreaterThanOrEqual(5);

      const sentAt = Date.now();
      pnpm!.kill(signal);
      await expect
        .poll(() => running.filter((pid) => procStat(pid) !== undefined), { timeout: STOP_BOUND_MS + 5_000 })
        .toEqual([]);
      expect(Date.now() - sentAt).toBeLessThan(STOP_BOUND_MS);
      expect(log).toMatch(/shutting down: draining every worker/);
      expect(log).toMatch(/"msg":"stopped"/);
      // The database stopped cleanly: its lock file is gone, and the next start opens it.
      expect(existsSync(path.join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
    },
    180_000,
  );
});
