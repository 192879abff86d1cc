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
import { createDb, type Db } from '../../server/src/db/database';
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

type Child = Awaited<ReturnType<typeof startProcess>>;

/** Two service processes over one database and issuer, an app installed with every scope, and a cohort price set. */
interface PartnerRig {
  store: { id: string; domain: string };
  clientId: string;
  bases: string[];
  auth: Record<string, string>;
  contextId: string;
  setId: string;
  call(base: string, method: string, path: string, body?: unknown): Promise<any>;
}

const rules = (amount: number) => [
  { min: 0, max: 100, terms: { customer: { amount, type: 'fixed' } } },
  {
    min: 100,
    max: 1e9,
    terms: { customer: { amount: 1.5, type: 'percentage' }, brand: { amount: 0.5, type: 'percentage' } },
  },
];

export async function benchPartner(): Promise<void> {
  const database = await benchDatabase();
  const db = createDb(database.url);
  const secret = randomBytes(32);
  const children: Child[] = [];
  try {
    await migrateToLatest(db);
    const rig = await partnerRig(db, secret, database.url, children);
    await benchQuote(db, rig, children);
    await benchCohortRead(rig, children);
    await benchInvalidation(rig);
  } finally {
    for (const child of children) await stopProcess(child);
    await db.destroy();
    await database.stop();
  }
}

async function partnerRig(db: Db, secret: Buffer, databaseUrl: string, children: Child[]): Promise<PartnerRig> {
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
        BENCH_DATABASE_URL: databaseUrl,
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
  const ctx = await call(bases[0]!, 'POST', '/v2/settings/context', { name: 'Bench' });
  const set = await call(bases[0]!, 'POST', `/v2/settings/context/${ctx.id}/pricing`, {
    variantKey: 'bench',
    type: 'SHIPPING',
    rules: rules(4),
  });
  return { store, clientId: app.clientId, bases, auth, contextId: ctx.id, setId: set.id, call };
}

/** 1. POST /v2/quote, 50 line items, against three baselines serving the same engine. */
async function benchQuote(db: Db, rig: PartnerRig, children: Child[]): Promise<void> {
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
      .where('storeId', '=', rig.store.id)
      .where('type', '=', 'SHIPPING')
      .executeTakeFirstOrThrow()
  ).rules;
  const baseline = async (script: string) => {
    const port = await freePort();
    children.push(await startProcess(script, { PORT: String(port), BENCH_RULES: JSON.stringify(merchantRules) }));
    return `http://127.0.0.1:${port}/v2/quote`;
  };
  const [bare, express, hand] = [
    await baseline('scripts/bench/serve-quote-bare.ts'),
    await baseline('scripts/bench/serve-quote-express.ts'),
    await baseline('scripts/bench/serve-quote-hand.ts'),
  ];
  process.stdout.write(
    '## POST /v2/quote (50 line items) against a bare server with the same schema and engine, one checking by hand, and Express + ts-rest alone\n',
  );
  const json = { 'content-type': 'application/json' };
  const quoteRows = await compare([
    {
      name: 'service POST /v2/quote',
      url: `${rig.bases[0]}/v2/quote`,
      method: 'POST',
      headers: rig.auth,
      body: quoteBody,
    },
    { name: 'bare node:http, same zod parse and engine', url: bare, method: 'POST', headers: json, body: quoteBody },
    { name: 'node:http, checked by hand, same engine', url: hand, method: 'POST', headers: json, body: quoteBody },
    {
      name: 'Express + ts-rest alone, same route and engine',
      url: express,
      method: 'POST',
      headers: json,
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
}

const cohortHeaders = (rig: PartnerRig) => ({ 'x-svc-partner-app-id': rig.clientId, 'x-svc-partner-variant': 'bench' });

/** 2. The cohort public read, cached, selected by the headers, against the same bytes from a bare server. */
async function benchCohortRead(rig: PartnerRig, children: Child[]): Promise<void> {
  const readPath = `/v1/quote/insurance?store_url=${rig.store.domain}&subtotal=120`;
  const sample = await fetch(`${rig.bases[1]}${readPath}`, { headers: cohortHeaders(rig) });
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
    {
      name: 'service GET /v1/quote/insurance (cohort)',
      url: `${rig.bases[1]}${readPath}`,
      headers: cohortHeaders(rig),
    },
    {
      name: 'bare node:http, same bytes and headers',
      url: `http://127.0.0.1:${bareReadPort}${readPath}`,
      headers: cohortHeaders(rig),
    },
  ]);
  report(readRows, 0.6);
}

/** 3. Invalidation delay across two processes: a write through A until B's cached read shows it. */
async function benchInvalidation(rig: PartnerRig): Promise<void> {
  process.stdout.write('\n## invalidation delay: cohort write through process A, cached read through process B\n');
  const premiumAtB = async () => {
    const url = `${rig.bases[1]}/v1/quote/insurance?store_url=${rig.store.domain}&subtotal=50`;
    const body = (await (await fetch(url, { headers: cohortHeaders(rig) })).json()) as { quote: { premium: number } };
    return body.quote.premium;
  };
  const delays: number[] = [];
  for (let i = 0; i < 100; i++) {
    const amount = 5 + (i % 2);
    await premiumAtB(); // cached in B before the write
    await rig.call(rig.bases[0]!, 'PATCH', `/v2/settings/context/${rig.contextId}/pricing/${rig.setId}`, {
      rules: rules(amount),
    });
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
}

function report(rows: Measured[], goal: number): void {
  printTable(rows);
  const ratio = rows[0]!.rps / rows[1]!.rps;
  process.stdout.write(`ratio service/bare: ${ratio.toFixed(2)} (goal >= ${goal.toFixed(2)})\n`);
}
