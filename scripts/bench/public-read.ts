/**
 * The shopper widget's read, GET /v1/quote/insurance, through the whole service (cached),
 * against a bare node:http server answering the same bytes, both from 100,000 client
 * addresses (BENCH_CLIENT_ADDRESSES) behind a reverse proxy on loopback: every address is
 * counted against its per-IP limit (D4). Goal: at least 0.9 of the bare server's
 * requests/second.
 */
import { randomBytes } from 'node:crypto';
import { createDb } from '../../server/src/db/database';
import { migrateToLatest } from '../../server/src/db/migrate';
import { createStore } from '../../server/src/domain/identity/stores';
import { freePort } from '../../server/src/free-port';
import { benchDatabase, compare, type Measured, printTable, startProcess, stopProcess } from './lib';

export async function benchPublicRead(): Promise<Measured[]> {
  const database = await benchDatabase();
  const db = createDb(database.url);
  try {
    await migrateToLatest(db);
    const domain = `bench-${Date.now()}.example.com`;
    await createStore(db, { name: 'Bench', domain });
    const path = `/v1/quote/insurance?store_url=${domain}&subtotal=120`;

    const appPort = await freePort();
    const app = await startProcess('scripts/bench/serve-app.ts', {
      PORT: String(appPort),
      BENCH_DATABASE_URL: database.url,
      BENCH_SECRET_KEY: randomBytes(32).toString('base64url'),
    });
    try {
      const sample = await fetch(`http://127.0.0.1:${appPort}${path}`);
      if (sample.status !== 200) throw new Error(`public read answered ${sample.status}`);
      const headers: Record<string, string> = {};
      sample.headers.forEach((value, name) => {
        if (!['date', 'connection', 'keep-alive', 'content-length'].includes(name)) headers[name] = value;
      });
      const barePort = await freePort();
      const bare = await startProcess('scripts/bench/serve-bare.ts', {
        PORT: String(barePort),
        BENCH_BODY: await sample.text(),
        BENCH_HEADERS: JSON.stringify(headers),
      });
      try {
        const clientAddresses = Number(process.env.BENCH_CLIENT_ADDRESSES ?? 100_000);
        const [service, baseline] = await compare([
          {
            name: `service GET /v1/quote/insurance (cached, ${clientAddresses} clients)`,
            url: `http://127.0.0.1:${appPort}${path}`,
            clientAddresses,
          },
          {
            name: 'bare node:http, same bytes and headers',
            url: `http://127.0.0.1:${barePort}${path}`,
            clientAddresses,
          },
        ]);
        printTable([service!, baseline!]);
        const ratio = service!.rps / baseline!.rps;
        process.stdout.write(`ratio service/bare: ${ratio.toFixed(2)} (goal >= 0.90)\n`);
        return [service!, baseline!];
      } finally {
        await stopProcess(bare);
      }
    } finally {
      await stopProcess(app);
    }
  } finally {
    await db.destroy();
    await database.stop();
  }
}
