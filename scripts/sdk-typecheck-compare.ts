/**
 * `pnpm sdk-typecheck-compare` measures what the SDK costs a consumer's compiler, side by side
 * with Stripe's SDK (`stripe`, pinned in the root devDependencies for this script only): one
 * consumer file calling ten operations of each, type-checked by `tsc --extendedDiagnostics`
 * with `skipLibCheck` on and off, in alternating rounds. It prints the median total time, check
 * time and memory of each, their ratios, the published declaration sizes, and whether the goal
 * holds (faster and less memory than Stripe in both modes; the exit code is 1 when not).
 *
 * Options: `--rounds N` (default 3), `--no-build` (measure the existing sdk/dist).
 */
import { execFile } from 'node:child_process';
import { mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '..');
const SDK = path.join(ROOT, 'sdk');
// Inside the SDK package, `@protection-service/sdk` resolves to itself through its `exports`,
// as from a consumer's node_modules; `stripe` resolves from the root node_modules.
const WORK = path.join(SDK, '.tmp', 'typecheck-compare');

/** Ten calls through this SDK: reads, writes with bodies, a query with numbers, a public read. */
const OURS = `import { createClient, paginate, unwrap } from '@protection-service/sdk';

const client = createClient({ baseUrl: 'https://api.example.com', accessToken: process.env.SVC_ACCESS_TOKEN });

export async function tenCalls(): Promise<number> {
  await client.orders.upsert({
    params: { sourceOrderId: '1001' },
    body: {
      sourceOrderNumber: '#1001',
      currency: 'USD',
      platformId: 'api',
      total: 120,
      premiumPaid: 2.5,
      sourceCreatedAt: '2026-01-31T12:00:00.000Z',
    },
  });
  const order = unwrap(await client.orders.get({ params: { sourceOrderId: '1001' } }));
  await client.orders.upsertFulfillment({
    params: { sourceOrderId: order.sourceOrderId, sourceFulfillmentId: 'f1' },
    body: { fulfillmentStatus: 'DELIVERED', trackingNumber: ['1Z999'], sourceItemIds: [{ sourceItemId: 'li1', quantity: 1 }] },
  });
  await client.claims.file({
    params: { sourceOrderId: '1001' },
    body: {
      email: 'shopper@example.com',
      salesChannel: 'ONLINE',
      claimCategory: 'SHIPPING',
      resolution: { desiredMethod: 'REFUND' },
      fulfillmentIssues: [{ issues: [{ issueType: 'DAMAGED', sourceItemId: 'li1', quantity: 1 }] }],
    },
  });
  let count = 0;
  for await (const claim of paginate(client.claims.list, { query: { first: 50, claimState: 'NEW' } })) {
    const one = await client.claims.get({ params: { claimId: claim.id } });
    if (one.status === 200) count += one.body.claimItems.length;
  }
  await client.claims.deny({ params: { claimId: 'c1' }, body: { reason: 'NOT_COVERED' } });
  const products = await client.products.get({ params: { productId: 'p1' } });
  if (products.status === 200) count += products.body.data.length;
  const settings = unwrap(await client.settings.get());
  const quote = await client.quote.create({
    body: { policyType: 'SHIPPING', currency: settings.data.storeCreditType === 'GIFT_CARD' ? 'USD' : 'EUR', orderTotal: 120 },
  });
  if (quote.status === 201) count += quote.body.data.premium;
  const pub = await client.public.getInsurance({ query: { store_url: 'shop.example.com', subtotal: 120 } });
  if (pub.status === 200) count += pub.body.rules.length;
  return count;
}
`;

/** Ten comparable calls through Stripe's SDK. */
const STRIPE = `import Stripe from 'stripe';

const stripe = new Stripe(process.env.STRIPE_SECRET_KEY ?? '');

export async function tenCalls(): Promise<number> {
  const customer = await stripe.customers.create({ email: 'shopper@example.com', name: 'Shopper' });
  const again = await stripe.customers.retrieve(customer.id);
  const intent = await stripe.paymentIntents.create({ amount: 12000, currency: 'usd', customer: customer.id });
  await stripe.paymentIntents.retrieve(intent.id);
  let count = 0;
  for await (const charge of stripe.charges.list({ limit: 50, customer: customer.id })) {
    const one = await stripe.charges.retrieve(charge.id);
    count += one.amount_refunded;
  }
  await stripe.refunds.create({ payment_intent: intent.id, reason: 'requested_by_customer' });
  const product = await stripe.products.retrieve('prod_1');
  count += product.images.length;
  const invoices = await stripe.invoices.list({ customer: customer.id, limit: 10 });
  count += invoices.data.length;
  const sub = await stripe.subscriptions.create({ customer: customer.id, items: [{ price: 'price_1' }] });
  count += sub.items.data.length;
  const balance = await stripe.balance.retrieve();
  count += balance.available.length + (again.deleted ? 0 : 1);
  return count;
}
`;

interface Sample {
  total: number;
  check: number;
  memoryMb: number;
  files: number;
}

const CONSUMERS = { 'this SDK': OURS, 'Stripe 23.1.0': STRIPE } as const;
type Consumer = keyof typeof CONSUMERS;

async function setUp(name: Consumer, skipLibCheck: boolean): Promise<string> {
  const dir = path.join(WORK, `${name.replace(/\W+/g, '-')}-${skipLibCheck ? 'skip' : 'full'}`);
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'index.ts'), CONSUMERS[name]);
  const compilerOptions = {
    strict: true,
    noEmit: true,
    target: 'es2022',
    module: 'nodenext',
    moduleResolution: 'nodenext',
    lib: ['es2022', 'dom'],
    types: ['node'],
    skipLibCheck,
  };
  await writeFile(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['index.ts'] }));
  return dir;
}

async function measure(dir: string): Promise<Sample> {
  const tsc = path.join(ROOT, 'node_modules/.bin/tsc');
  const { stdout } = await exec(tsc, ['-p', 'tsconfig.json', '--extendedDiagnostics'], { cwd: dir }).catch(
    (e: { stdout: string }) => {
      throw new Error(`tsc failed in ${dir}:\n${e.stdout}`);
    },
  );
  const read = (label: string) => {
    const m = new RegExp(`^${label}:\\s+([\\d.]+)`, 'm').exec(stdout);
    if (!m) throw new Error(`no "${label}" in tsc --extendedDiagnostics`);
    return Number(m[1]);
  };
  return {
    total: read('Total time'),
    check: read('Check time'),
    memoryMb: read('Memory used') / 1024,
    files: read('Files'),
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function declarationBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && /\.d\.(c|m)?ts$/.test(entry.name))
      total += (await stat(path.join(entry.parentPath, entry.name))).size;
  }
  return total;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const roundsAt = args.indexOf('--rounds');
  const rounds = roundsAt >= 0 ? Number(args[roundsAt + 1]) : 3;
  if (!args.includes('--no-build')) {
    process.stdout.write('building the SDK (tsup)…\n');
    await exec(path.join(SDK, 'node_modules/.bin/tsup'), [], { cwd: SDK });
  }
  await rm(WORK, { recursive: true, force: true });
  const runs: { name: Consumer; skipLibCheck: boolean; dir: string; samples: Sample[] }[] = [];
  for (const skipLibCheck of [true, false]) {
    for (const name of Object.keys(CONSUMERS) as Consumer[]) {
      runs.push({ name, skipLibCheck, dir: await setUp(name, skipLibCheck), samples: [] });
    }
  }
  // Alternating rounds, so that a busy machine weighs on both sides alike.
  for (let round = 0; round < rounds; round++) {
    for (const run of round % 2 ? [...runs].reverse() : runs) run.samples.push(await measure(run.dir));
    process.stdout.write(`round ${round + 1}/${rounds} done\n`);
  }
  await rm(WORK, { recursive: true, force: true });

  const ours = (await stat(path.join(SDK, 'dist/index.d.ts'))).size;
  const theirs = await declarationBytes(path.join(ROOT, 'node_modules/stripe/cjs'));
  const rows: string[][] = [['skipLibCheck', 'SDK', 'total s', 'check s', 'memory MB', 'files']];
  const verdicts: string[] = [];
  let holds = true;
  for (const skipLibCheck of [true, false]) {
    const [a, b] = runs
      .filter((r) => r.skipLibCheck === skipLibCheck)
      .map((r) => ({
        name: r.name,
        total: median(r.samples.map((s) => s.total)),
        check: median(r.samples.map((s) => s.check)),
        memoryMb: median(r.samples.map((s) => s.memoryMb)),
        files: r.samples[0]!.files,
      }));
    for (const r of [a!, b!]) {
      rows.push([
        String(skipLibCheck),
        r.name,
        r.total.toFixed(2),
        r.check.toFixed(2),
        r.memoryMb.toFixed(0),
        String(r.files),
      ]);
    }
    const timeRatio = a!.total / b!.total;
    const memoryRatio = a!.memoryMb / b!.memoryMb;
    holds &&= timeRatio < 1 && memoryRatio < 1;
    verdicts.push(
      `skipLibCheck ${skipLibCheck}: time ${timeRatio.toFixed(2)}× Stripe's, memory ${memoryRatio.toFixed(2)}× Stripe's`,
    );
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const table = rows.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ')).join('\n');
  process.stdout.write(
    `\n${table}\n\n${verdicts.join('\n')}\n` +
      `declarations: this SDK ${(ours / 1024).toFixed(0)} KB (dist/index.d.ts), Stripe ${(theirs / 1024).toFixed(0)} KB (cjs/**/*.d.ts)\n` +
      `medians of ${rounds} alternating rounds, tsc ${(await exec(path.join(ROOT, 'node_modules/.bin/tsc'), ['-v'])).stdout.trim()}\n` +
      `goal (faster and less memory than Stripe, skipLibCheck on and off): ${holds ? 'holds' : 'DOES NOT HOLD'}\n`,
  );
  if (!holds) process.exitCode = 1;
}

await main();
