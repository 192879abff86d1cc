import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { restartablePort } from './ports';

/** Debian installs it outside a non-root user's PATH. */
const BINARY = existsSync('/usr/sbin/pgbouncer') ? '/usr/sbin/pgbouncer' : 'pgbouncer';

export interface PgBouncer {
  /** `target` with the pooler's host and port in place of the database's. */
  url(target: string): string;
  output(): string;
  /** Stops it at once (SIGTERM, cutting every connection), waits `downMs`, and starts it again on the same port. */
  restart(downMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Debian's PgBouncer (`apt-get install pgbouncer`; `.ci/run` installs it) on a free loopback
 * port (one it can restart on) in front of the PostgreSQL of `target`, for every database of it, configured as hosted
 * transaction poolers ship (D48): no startup parameter ignored but `extra_float_digits`.
 * PgBouncer refuses to run as root: as root it runs as the `postgres` system user (the
 * embedded PostgreSQL's) or `nobody`.
 */
export async function startPgBouncer(
  target: string,
  { poolMode = 'transaction', poolSize = 20 }: { poolMode?: 'transaction' | 'session'; poolSize?: number } = {},
): Promise<PgBouncer> {
  const t = new URL(target);
  const port = await restartablePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pgbouncer-'));
  chmodSync(dir, 0o777);
  const user = decodeURIComponent(t.username);
  const password = decodeURIComponent(t.password);
  writeFileSync(path.join(dir, 'userlist.txt'), `"${user}" "${password.replace(/"/g, '""')}"\n`, { mode: 0o644 });
  writeFileSync(
    path.join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${t.hostname} port=${t.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = plain',
      `auth_file = ${path.join(dir, 'userlist.txt')}`,
      `pool_mode = ${poolMode}`,
      `default_pool_size = ${poolSize}`,
      'max_client_conn = 1000',
      'ignore_startup_parameters = extra_float_digits',
      'server_login_retry = 1',
      '',
    ].join('\n'),
    { mode: 0o644 },
  );
  const asUser = process.getuid?.() === 0 ? systemUser() : {};
  let output = '';
  const launch = async () => {
    const child: ChildProcess = spawn(BINARY, [path.join(dir, 'pgbouncer.ini')], {
      stdio: ['ignore', 'pipe', 'pipe'],
      ...asUser,
    });
    const append = (d: Buffer) => {
      output += d;
    };
    child.stdout!.on('data', append);
    child.stderr!.on('data', append);
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    await waitForPort(port, child, () => output);
    return { child, exited };
  };
  /** SIGTERM: PgBouncer's immediate shutdown, every client connection cut, transactions in flight included. */
  const halt = async ({ child, exited }: Awaited<ReturnType<typeof launch>>) => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  let current = await launch();
  return {
    url(of) {
      const u = new URL(of);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    output: () => output,
    async restart(downMs = 0) {
      await halt(current);
      await new Promise((resolve) => setTimeout(resolve, downMs));
      current = await launch();
    },
    async stop() {
      await halt(current);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The uid and gid PgBouncer runs under when the tests run as root. */
function systemUser(): { uid: number; gid: number } {
  for (const name of ['postgres', 'nobody']) {
    try {
      const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim());
      const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }).trim());
      return { uid, gid };
    } catch {}
  }
  throw new Error('PgBouncer refuses root, and there is no postgres or nobody user to run it as');
}

async function waitForPort(port: number, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited with ${child.exitCode}:\n${output()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`pgbouncer did not listen on ${port}:\n${output()}`);
}
