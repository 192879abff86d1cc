/**
 * The shopper's claim form (D56), its pages one at a time as a shopper's browser asks for them:
 * the lookup page, "Find my order" (the lines page), "File claim" with one 2 MB photo sent
 * with the form (no script), the claim's page it lands on (D41), and "Add photos" there. Each
 * step's p50 and p95. The per-address lookup limit (10 a minute, D4) would stop a bench from one
 * address, so its count is cleared before each lookup, outside the timing.
 */
import type { Db } from '../../server/src/db/database';
import { percentile } from './lib';

const ROUNDS = Number(process.env.BENCH_FORM_ROUNDS ?? 20);

interface Browser {
  cookie: string;
}

async function timed(
  f: () => Promise<Response>,
  expected: number,
): Promise<{ ms: number; res: Response; text: string }> {
  const started = performance.now();
  const res = await f();
  const text = await res.text();
  const ms = performance.now() - started;
  if (res.status !== expected) throw new Error(`${res.url} answered ${res.status}, not ${expected}`);
  return { ms, res, text };
}

const hidden = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(html)?.[1] ?? '';

export async function benchClaimForm(
  db: Db,
  base: string,
  token: string,
  domain: string,
  photo: Buffer,
): Promise<void> {
  const order = await fetch(`${base}/v1/orders/bench-form`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      sourceOrderNumber: '#5001',
      currency: 'USD',
      platformId: 'shopify',
      total: 100,
      sourceCreatedAt: '2026-01-31T12:00:00Z',
      customerEmail: 'bench@example.com',
      lineItems: [{ sourceItemId: 'li-1', name: 'Vase', quantity: 100_000, price: 10, isShippable: true }],
    }),
  });
  if (order.status !== 200) throw new Error(`order PUT answered ${order.status}`);
  printSteps(await runRounds(db, base, domain, photo));
}

/** `ROUNDS` times the shopper's way through the form, one at a time; answers each step's latencies. */
async function runRounds(db: Db, base: string, domain: string, photo: Buffer): Promise<Record<string, number[]>> {
  const form = `${base}/claims/new?store=${encodeURIComponent(domain)}`;
  const steps: Record<string, number[]> = { lookup: [], find: [], file: [], claim: [], addPhoto: [] };
  const browser: Browser = { cookie: '' };
  const send = (url: string, init: RequestInit = {}) =>
    fetch(url, { redirect: 'manual', ...init, headers: { ...(init.headers ?? {}), cookie: browser.cookie } });
  for (let round = 0; round < ROUNDS; round++) {
    const lookup = await timed(() => send(form), 200);
    browser.cookie ||= (lookup.res.headers.get('set-cookie') ?? '').split(';')[0]!;
    steps.lookup!.push(lookup.ms);
    await db.deleteFrom('rateLimitCounters').where('key', 'like', 'claim-form:%').execute();
    const find = await timed(
      () =>
        send(form, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            csrf: hidden(lookup.text, 'csrf'),
            orderNumber: '5001',
            email: 'BENCH@example.com',
          }),
        }),
      200,
    );
    steps.find!.push(find.ms);
    const body = new FormData();
    for (const [name, value] of Object.entries({
      csrf: hidden(find.text, 'csrf'),
      pass: hidden(find.text, 'pass'),
      'claim.0': 'on',
      'quantity.0': '1',
      'issue.0': 'DAMAGED',
      'details.0': 'Broken.',
      resolution: 'RESHIP',
    }))
      body.set(name, value);
    body.set('photos.0', new Blob([photo as Uint8Array<ArrayBuffer>], { type: 'image/jpeg' }), 'photo.jpg');
    const file = await timed(
      () => send(`${base}/claims/new/file?store=${encodeURIComponent(domain)}`, { method: 'POST', body }),
      303,
    );
    steps.file!.push(file.ms);
    const claimUrl = file.res.headers.get('location')!;
    const claim = await timed(() => send(claimUrl), 200);
    steps.claim!.push(claim.ms);
    const add = new FormData();
    add.set('csrf', hidden(claim.text, 'csrf'));
    add.set('photos', new Blob([photo as Uint8Array<ArrayBuffer>], { type: 'image/jpeg' }), 'later.jpg');
    steps.addPhoto!.push((await timed(() => send(`${claimUrl}/photos`, { method: 'POST', body: add }), 303)).ms);
  }
  return steps;
}

function printSteps(steps: Record<string, number[]>): void {
  const words: Record<string, string> = {
    lookup: 'GET /claims/new (lookup page)',
    find: 'POST /claims/new (Find my order)',
    file: 'POST /claims/new/file, one 2 MB photo',
    claim: 'GET /claims/view/:token (claim page)',
    addPhoto: 'POST /claims/view/:token/photos, one photo',
  };
  process.stdout.write(`claim form pages, ${ROUNDS} rounds one at a time:\n`);
  for (const [step, latencies] of Object.entries(steps)) {
    latencies.sort((a, b) => a - b);
    process.stdout.write(
      `${words[step]!.padEnd(44)} p50 ${percentile(latencies, 0.5).toFixed(1).padStart(7)} ms  p95 ${percentile(latencies, 0.95).toFixed(1).padStart(7)} ms\n`,
    );
  }
}
