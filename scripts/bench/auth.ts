/**
 * Authenticated reads, in one run against the service:
 * - GET /v2/settings with an access token (signature check, revocation check, rate limit,
 *   scopes, the per-store cached answer) against a plain Express 4 route answering the same
 *   bytes (scripts/bench/serve-express.ts). Goal: at least 0.6. The same route served as
 *   the service is (http/server.ts) is shown beside it, for a like-for-like figure.
 * - The same read with production logging on (LOG_LEVEL=info, a JSON line per request).
 * - POST /v1/oauth/token, client-credentials grant (client secret digest compare, the
 *   installation lookup, signing).
 */
import { randomBytes } from 'node:crypto';
import { createDb } from '../../server/src/db/database';
import { migrateToLatest } from '../../server/src/db/migrate';
import { freePort } from '../../server/src/free-port';
import { benchInstallation } from './install';
import {
  benchDatabase,
  compare,
  type Measured,
  printTable,
  startProcess,
  startService,
  stopProcess,
  type Target,
} from './lib';

export async function benchAuth(): Promise<Measured[]> {
  const database = await benchDatabase();
  const db = createDb(database.url);
  const secret = randomBytes(32);
  const children: Awaited<ReturnType<typeof startProcess>>[] = [];
  try {
    await migrateToLatest(db);
    const installed = await benchInstallation(db, secret, 'auth', ['store:read']);
    const silent = await startService(database.url, secret);
    children.push(silent.child);
    const logging = await startService(database.url, secret, { BENCH_LOG_LEVEL: 'info' });
    children.push(logging.child);
    const settings = (base: string) => ({
      url: `${base}/v2/settings`,
      headers: { authorization: `Bearer ${installed.tokenFor(base)}` },
    });

    const sample = await fetch(settings(silent.base).url, { headers: settings(silent.base).headers });
    if (sample.status !== 200) throw new Error(`GET /v2/settings answered ${sample.status}`);
    const headers: Record<string, string> = {};
    sample.headers.forEach((value, name) => {
      if (!['date', 'connection', 'keep-alive', 'content-length'].includes(name)) headers[name] = value;
    });
    const body = await sample.text();
    const serveExpress = async (env: Record<string, string> = {}) => {
      const port = await freePort();
      children.push(
        await startProcess('scripts/bench/serve-express.ts', {
          PORT: String(port),
          BENCH_PATH: '/v2/settings',
          BENCH_BODY: body,
          BENCH_HEADERS: JSON.stringify(headers),
          ...env,
        }),
      );
      return `http://127.0.0.1:${port}/v2/settings`;
    };
    const plainExpress = await serveExpress();
    const appServerExpress = await serveExpress({ BENCH_APP_SERVER: '1' });

    const targets: Target[] = [
      { name: 'GET /v2/settings (access token)', ...settings(silent.base) },
      { name: 'plain Express 4 route, same bytes', url: plainExpress },
      { name: 'GET /v2/settings, LOG_LEVEL=info', ...settings(logging.base) },
      { name: 'Express 4 route, same bytes, served as the service is', url: appServerExpress },
    ];
    const tokenBody = JSON.stringify({
      grant_type: 'client_credentials',
      client_id: installed.clientId,
      client_secret: installed.clientSecret,
      store_id: installed.store.id,
    });
    const probe = await fetch(`${silent.base}/v1/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: tokenBody,
    });
    if (probe.status === 200) {
      targets.push({
        name: 'POST /v1/oauth/token (client credentials)',
        url: `${silent.base}/v1/oauth/token`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: tokenBody,
      });
    } else {
      process.stdout.write(`POST /v1/oauth/token answered ${probe.status}: not measured\n`);
    }
    const rows = await compare(targets);
    printTable(rows);
    process.stdout.write(`settings / plain Express: ${(rows[0]!.rps / rows[1]!.rps).toFixed(2)} (goal >= 0.6)\n`);
    process.stdout.write(`settings with LOG_LEVEL=info / plain Express: ${(rows[2]!.rps / rows[1]!.rps).toFixed(2)}\n`);
    process.stdout.write(`settings / Express served as the service is: ${(rows[0]!.rps / rows[3]!.rps).toFixed(2)}\n`);
    return rows;
  } finally {
    for (const child of children) await stopProcess(child);
    await db.destroy();
    await database.stop();
  }
}
