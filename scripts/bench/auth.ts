/**
 * Authentication costs, measured in one run against one server process:
 * - GET /v2/settings with an access token (signature check + in-memory revocation check, no
 *   database round trip for the token, one query for the settings) next to the cached
 *   public read (no token, no query);
 * - POST /v1/oauth/token, client-credentials grant (client secret digest compare, the
 *   installation lookup, signing).
 */
import { randomBytes } from 'node:crypto';
import { createDb } from '../../server/src/db/database';
import { migrateToLatest } from '../../server/src/db/migrate';
import { benchInstallation } from './install';
import { benchDatabase, compare, type Measured, printTable, startService, stopProcess, type Target } from './lib';

export async function benchAuth(): Promise<Measured[]> {
  const database = await benchDatabase();
  const db = createDb(database.url);
  const secret = randomBytes(32);
  try {
    await migrateToLatest(db);
    const installed = await benchInstallation(db, secret, 'auth', ['store:read']);
    const domain = installed.store.domain;
    const service = await startService(database.url, secret);
    const server = service.child;
    const base = service.base;
    const token = installed.tokenFor(base);
    const rows: Measured[] = [];
    try {
      const publicPath = `/v1/quote/insurance?store_url=${domain}`;
      const check = await fetch(`${base}/v2/settings`, { headers: { authorization: `Bearer ${token}` } });
      if (check.status !== 200) throw new Error(`GET /v2/settings answered ${check.status}`);
      await fetch(`${base}${publicPath}`);
      const targets: Target[] = [
        {
          name: 'GET /v2/settings (access token)',
          url: `${base}/v2/settings`,
          headers: { authorization: `Bearer ${token}` },
        },
        { name: 'GET /v1/quote/insurance (public, cached)', url: `${base}${publicPath}` },
      ];
      const tokenBody = JSON.stringify({
        grant_type: 'client_credentials',
        client_id: installed.clientId,
        client_secret: installed.clientSecret,
        store_id: installed.store.id,
      });
      const probe = await fetch(`${base}/v1/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: tokenBody,
      });
      if (probe.status === 200) {
        targets.push({
          name: 'POST /v1/oauth/token (client credentials)',
          url: `${base}/v1/oauth/token`,
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: tokenBody,
        });
      } else {
        process.stdout.write(`POST /v1/oauth/token answered ${probe.status}: not measured\n`);
      }
      rows.push(...(await compare(targets)));
    } finally {
      await stopProcess(server);
    }
    printTable(rows);
    return rows;
  } finally {
    await db.destroy();
    await database.stop();
  }
}
