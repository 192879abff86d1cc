/**
 * The shopper widget's read, GET /v1/quote/insurance, through the whole service (cached),
 * against a bare node:http server answering the same bytes. Goal: at least 0.6 of the bare
 * server's requests/second.
 */
import { createDb } from '../../server/src/db/database';
import { migrateToLatest } from '../../server/src/db/migrate';
import { createStore } from '../../server/src/domain/stores';
import { benchDatabase, freePort, load, type Measured, printTable, startProcess, stopProcess } from './lib';

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
    });
    let service: Measured;
    let sample: Response;
    try {
      sample = await fetch(`http://127.0.0.1:${appPort}${path}`);
      if (sample.status !== 200) throw new Error(`public read answered ${sample.status}`);
      service = await load('service GET /v1/quote/insurance', { url: `http://127.0.0.1:${appPort}${path}` });
    } finally {
      await stopProcess(app);
    }

    const headers: Record<string, string> = {};
    for (const name of ['content-type', 'cache-control', 'etag', 'x-request-id', 'access-control-allow-origin']) {
      const v = sample.headers.get(name);
      if (v) headers[name] = v;
    }
    const barePort = await freePort();
    const bare = await startProcess('scripts/bench/serve-bare.ts', {
      PORT: String(barePort),
      BENCH_BODY: await sample.text(),
      BENCH_HEADERS: JSON.stringify(headers),
    });
    let baseline: Measured;
    try {
      baseline = await load('bare node:http, same bytes', { url: `http://127.0.0.1:${barePort}${path}` });
    } finally {
      await stopProcess(bare);
    }

    printTable([service, baseline]);
    const ratio = service.rps / baseline.rps;
    process.stdout.write(`ratio service/bare: ${ratio.toFixed(2)} (goal >= 0.60)\n`);
    return [service, baseline];
  } finally {
    await db.destroy();
    await database.stop();
  }
}
