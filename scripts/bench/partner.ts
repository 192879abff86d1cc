/**
 * The partner surface under load, each against a baseline in the same run:
 * - POST /v2/quote with 50 line items against a bare node:http server that parses the same
 *   body with the same zod schema and prices it with the same engine (goal: at least 0.7),
 *   against one that checks the body by hand (goal: at least 0.3), and against Express and
 *   ts-rest serving the same route with nothing else (how much is the framework's);
 * - the cohort public read, cached and selected by the D29 headers, against a bare server
 *   answering the same bytes (goal: at least 0.6);
 * - the invalidation delay across two server processes: a cohort price write through one,
 *   until the other's cached public read shows it, over 100 writes (goal: p99 under 500 ms).
 */
import { randomBytes } from 'node:crypto';
import { SCOPES } from '@protection-service/contract';
import { createDb } from '../../server/src/db/database';
import { migrateToLatest } from '../../server/src/db/migrate';
import { issueAccessToken, tokenKeys } from '../../server/src/domain/auth/tokens';
import { registerApp } from '../../server/src/domain/identity/apps';
import { createStore } from '../../server/src/domain/identity/stores';
import { createUser } from '../../server/src/domain/identity/users';
import { freePort } from '../../server/src/free-port';
import { newId } from '../../server/src/lib/ids';
import { benchDatabase, compare, type Measured, printTable, startProcess, stopProcess } from './lib';

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

export async function benchPartner(): Promise<void> {
  const database = await benchDatabase();
  const db = createDb(database.url);
  const secret = randomBytes(32);
  const children: Awaited<ReturnType<typeof startProcess>>[] = [];
  try {
    await migrateToLatest(db);
    const stamp = Date.now();
    const store = await createStore(db, { name: 'Bench partner', domain: `bench-partner-${stamp}.example.com` });
    const user = await createUser(db, {
      email: `bench-partner-${stamp}@example.com`,
      password: 'bench-password',
      storeIds: [store.id],
    });
    const app = await registerApp(db, secret, user.id, {
      name: 'Bench partner',
      redirectUris: ['https://bench.example.com/cb'],
      requestedScopes: [...SCOPES],
      distribution: 'public',
    });
    const installationId = newId('in');
    await db
      .insertInto('installations')
      .values({ id: installationId, storeId: store.id, clientId: app.clientId, scopes: [...SCOPES] })
      .execute();

    const ports = [await freePort(), await freePort()];
    const bases = ports.map((p) => `http://127.0.0.1:${p}`);
    // Both processes share one issuer, so one token serves both.
    const issuer = bases[0]!;
    const { token } = issueAccessToken(tokenKeys(secret, issuer), {
      grantId: null,
      installationId,
      storeId: store.id,
      clientId: app.clientId,
      scopes: [...SCOPES],
    });
    for (const port of ports) {
      children.push(
        await startProcess('scripts/bench/serve-app.ts', {
          PORT: String(port),
          BENCH_DATABASE_URL: database.url,
          BENCH_SECRET_KEY: secret.toString('base64url'),
          BENCH_ISSUER: issuer,
        }),
      );
    }
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const call = async (base: string, method: string, path: string, body?: unknown) => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: auth,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
      return ((await res.json()) as { data: any }).data;
    };
    const rules = (amount: number) => [
      { min: 0, max: 100, terms: { customer: { amount, type: 'fixed' } } },
      {
        min: 100,
        max: 1e9,
        terms: { customer: { amount: 1.5, type: 'percentage' }, brand: { amount: 0.5, type: 'percentage' } },
      },
    ];
    const ctx = await call(bases[0]!, 'POST', '/v2/settings/context', { name: 'Bench' });
    const set = await call(bases[0]!, 'POST', `/v2/settings/context/${ctx.id}/pricing`, {
      variantKey: 'bench',
      type: 'SHIPPING',
      rules: rules(4),
    });

    // 1. POST /v2/quote, 50 line items.
    const quoteBody = JSON.stringify({
      currency: 'USD',
      lineItems: Array.from({ length: 50 }, (_, i) => ({
        id: `li-${i}`,
        price: 10 + i * 1.25,
        quantity: 1 + (i % 3),
        isShippable: i % 7 !== 0,
      })),
    });
    const merchantRules = (
      await db
        .selectFrom('pricingRuleSets')
        .select('rules')
        .where('storeId', '=', store.id)
        .where('type', '=', 'SHIPPING')
        .executeTakeFirstOrThrow()
    ).rules;
    const barePort = await freePort();
    const bareQuote = await startProcess('scripts/bench/serve-quote-bare.ts', {
      PORT: String(barePort),
      BENCH_RULES: JSON.stringify(merchantRules),
    });
    children.push(bareQuote);
    const expressPort = await freePort();
    children.push(
      await startProcess('scripts/bench/serve-quote-express.ts', {
        PORT: String(expressPort),
        BENCH_RULES: JSON.stringify(merchantRules),
      }),
    );
    const handPort = await freePort();
    children.push(
      await startProcess('scripts/bench/serve-quote-hand.ts', {
        PORT: String(handPort),
        BENCH_RULES: JSON.stringify(merchantRules),
      }),
    );
    process.stdout.write(
      '## POST /v2/quote (50 line items) against a bare server with the same schema and engine, one checking by hand, and Express + ts-rest alone\n',
    );
    const quoteRows = await compare([
      { name: 'service POST /v2/quote', url: `${bases[0]}/v2/quote`, method: 'POST', headers: auth, body: quoteBody },
      {
        name: 'bare node:http, same zod parse and engine',
        url: `http://127.0.0.1:${barePort}/v2/quote`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: quoteBody,
      },
      {
        name: 'node:http, checked by hand, same engine',
        url: `http://127.0.0.1:${handPort}/v2/quote`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: quoteBody,
      },
      {
        name: 'Express + ts-rest alone, same route and engine',
        url: `http://127.0.0.1:${expressPort}/v2/quote`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: quoteBody,
      },
    ]);
    report(quoteRows, 0.7);
    const ratio = (i: number, j: number) => (quoteRows[i]!.rps / quoteRows[j]!.rps).toFixed(2);
    process.stdout.write(`ratio service/by hand: ${ratio(0, 2)} (goal >= 0.30)\n`);
    // Where the distance to the bare server lies: the framework, or the service's own pipeline.
    process.stdout.write(
      `ratio Express + ts-rest alone/bare: ${ratio(3, 1)}; service/Express + ts-rest alone: ${ratio(0, 3)}\n`,
    );

    // 2. The cohort public read, cached, selected by the headers.
    const cohortHeaders = { 'x-svc-partner-app-id': app.clientId, 'x-svc-partner-variant': 'bench' };
    const readPath = `/v1/quote/insurance?store_url=${store.domain}&subtotal=120`;
    const sample = await fetch(`${bases[1]}${readPath}`, { headers: cohortHeaders });
    const sampleBody = await sample.text();
    if (!sampleBody.includes('"source":"partner"'))
      throw new Error(`cohort read answered ${sample.status}: ${sampleBody}`);
    const headers: Record<string, string> = {};
    sample.headers.forEach((value, name) => {
      if (!['date', 'connection', 'keep-alive', 'content-length'].includes(name)) headers[name] = value;
    });
    const bareReadPort = await freePort();
    children.push(
      await startProcess('scripts/bench/serve-bare.ts', {
        PORT: String(bareReadPort),
        BENCH_BODY: sampleBody,
        BENCH_HEADERS: JSON.stringify(headers),
      }),
    );
    process.stdout.write('\n## cohort public read (cached, header-selected) against a bare server, same bytes\n');
    const readRows = await compare([
      { name: 'service GET /v1/quote/insurance (cohort)', url: `${bases[1]}${readPath}`, headers: cohortHeaders },
      {
        name: 'bare node:http, same bytes and headers',
        url: `http://127.0.0.1:${bareReadPort}${readPath}`,
        headers: cohortHeaders,
      },
    ]);
    report(readRows, 0.6);

    // 3. Invalidation delay across two processes.
    process.stdout.write('\n## invalidation delay: cohort write through process A, cached read through process B\n');
    const premiumAtB = async () =>
      (
        (await (
          await fetch(`${bases[1]}/v1/quote/insurance?store_url=${store.domain}&subtotal=50`, {
            headers: cohortHeaders,
          })
        ).json()) as {
          quote: { premium: number };
        }
      ).quote.premium;
    const delays: number[] = [];
    for (let i = 0; i < 100; i++) {
      const amount = 5 + (i % 2);
      await premiumAtB(); // cached in B before the write
      await call(bases[0]!, 'PATCH', `/v2/settings/context/${ctx.id}/pricing/${set.id}`, { rules: rules(amount) });
      const written = performance.now();
      while ((await premiumAtB()) !== amount) {
        if (performance.now() - written > 10_000) throw new Error('write not visible in process B after 10 s');
      }
      delays.push(performance.now() - written);
    }
    const sorted = [...delays].sort((a, b) => a - b);
    const p50 = percentile(sorted, 50);
    const p99 = percentile(sorted, 99);
    process.stdout.write(
      `100 writes: p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${sorted.at(-1)!.toFixed(1)} ms (goal: p99 < 500 ms)\n`,
    );
  } finally {
    for (const child of children) await stopProcess(child);
    await db.destroy();
    await database.stop();
  }
}

function report(rows: Measured[], goal: number): void {
  printTable(rows);
  const ratio = rows[0]!.rps / rows[1]!.rps;
  process.stdout.write(`ratio service/bare: ${ratio.toFixed(2)} (goal >= ${goal.toFixed(2)})\n`);
}
