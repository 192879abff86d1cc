/**
 * WEB_CONCURRENCY: the authenticated read (GET /v2/settings with an access token) through
 * `pnpm start` itself with two HTTP workers against one, both on the same database, in
 * alternating rounds. On a machine with as many cores as workers (and the load generator
 * sharing them), the ratio says what the second worker buys.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createDb } from '../../server/src/db/database';
import { migrateToLatest } from '../../server/src/db/migrate';
import { freePort } from '../../server/src/free-port';
import { benchInstallation } from './install';
import { benchDatabase, compare, type Measured, printTable, ROOT, stopProcess } from './lib';

const ISSUER = 'http://bench.local';

async function startServer(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', 'server/src/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    const ready = await fetch(`http://127.0.0.1:${env.PORT}/readyz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ready) return child;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('server did not become ready');
}

export async function benchConcurrency(): Promise<Measured[]> {
  const database = await benchDatabase();
  const db = createDb(database.url);
  const secret = randomBytes(32);
  const servers: ChildProcess[] = [];
  try {
    await migrateToLatest(db);
    const token = (await benchInstallation(db, secret, 'concurrency', ['store:read'])).tokenFor(ISSUER);

    const urls: Record<number, string> = {};
    for (const workers of [1, 2]) {
      const port = await freePort();
      servers.push(
        await startServer({
          PORT: String(port),
          HOST: '127.0.0.1',
          DATABASE_URL: database.url,
          SECRET_KEY: secret.toString('base64url'),
          PUBLIC_BASE_URL: ISSUER,
          WEB_CONCURRENCY: String(workers),
          // Counted on every request, but out of the way of one address's load.
          RATE_LIMIT_TOKEN: '1000000000',
          WEBHOOK_WORKERS: '0',
          LOG_LEVEL: 'warn',
        }),
      );
      urls[workers] = `http://127.0.0.1:${port}/v2/settings`;
    }
    const headers = { authorization: `Bearer ${token}` };
    const rows = await compare([
      { name: 'GET /v2/settings, WEB_CONCURRENCY=2', url: urls[2]!, headers },
      { name: 'GET /v2/settings, WEB_CONCURRENCY=1', url: urls[1]!, headers },
    ]);
    printTable(rows);
    process.stdout.write(`ratio 2 workers / 1: ${(rows[0]!.rps / rows[1]!.rps).toFixed(2)}\n`);
    return rows;
  } finally {
    for (const server of servers) await stopProcess(server);
    await db.destroy();
    await database.stop();
  }
}
