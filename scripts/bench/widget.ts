/**
 * The storefront offer (D55): the script's gzip size (goal <= 10,000 bytes; the build fails
 * above it), the time from the element's connection to its first render in headless Chromium
 * against a bare page of the same shop in the same run, and the quote read that carries the
 * offer token against the same read without it: both priced from a subtotal and both with the
 * widget configs, the one at a subtotal its rules cover (eligible: the token is signed), the
 * other at one outside every rule (not eligible: no token), both uncached (each request its
 * own URL), so the difference is what the token costs. Goal: at least 0.9.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createDb } from '../../server/src/db/database';
import { migrateToLatest } from '../../server/src/db/migrate';
import { createStore } from '../../server/src/domain/identity/stores';
import { buildOfferScript, GZIP_BUDGET } from '../../storefront/build';
import { benchDatabase, compare, type Measured, percentile, printTable, startService, stopProcess } from './lib';

const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find(
  (p): p is string => !!p && existsSync(p),
);
/** Notes when the element is defined (and so connected: it is in the page already) and when it first shows its label. */
const RENDER_PROBE = `customElements.whenDefined('protection-offer').then(() => {
  window.connectedAt = performance.now();
  const poll = () => {
    if (document.querySelector('protection-offer')?.shadowRoot?.querySelector('label')) window.renderedAt = performance.now();
    else setTimeout(poll, 1);
  };
  poll();
});`;
const RUNS = Number(process.env.BENCH_WIDGET_RUNS ?? 15);

/** Median milliseconds of: the bare page's load, the offer page's load, and connection to first render. */
async function renderTimes(service: string, domain: string) {
  const page = (withOffer: boolean) => `<!doctype html><html lang="en"><head><title>Cart</title>
${withOffer ? `<script src="${service}/widget/v1/offer.js"></script>` : ''}</head><body><h1>Cart</h1>
<form method="post">${withOffer ? `<protection-offer store="${domain}" subtotal="120" country="US"></protection-offer>` : ''}
<button>Check out</button></form></body></html>`;
  const shop = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(page(req.url !== '/bare'));
  });
  await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
  const base = `http://localhost:${(shop.address() as AddressInfo).port}`;
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox'] });
  const times = { bare: [] as number[], offer: [] as number[], render: [] as number[] };
  try {
    for (let i = 0; i < RUNS; i++) {
      for (const kind of ['bare', 'offer'] as const) {
        // A fresh context each time: nothing cached, as a first visit.
        const context = await browser.newContext();
        const p = await context.newPage();
        // A string: a function would be serialised with the helpers tsx adds to named functions.
        await p.addInitScript({ content: RENDER_PROBE });
        await p.goto(`${base}/${kind === 'bare' ? 'bare' : 'cart'}`, { waitUntil: 'load' });
        const load = await p.evaluate(
          () => (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).loadEventEnd,
        );
        times[kind].push(load);
        if (kind === 'offer') {
          await p.waitForFunction(() => (window as unknown as { renderedAt?: number }).renderedAt !== undefined);
          times.render.push(
            await p.evaluate(() => {
              const w = window as unknown as { connectedAt: number; renderedAt: number };
              return w.renderedAt - w.connectedAt;
            }),
          );
        }
        await context.close();
      }
    }
  } finally {
    await browser.close();
    shop.close();
  }
  const median = (xs: number[]) =>
    percentile(
      [...xs].sort((a, b) => a - b),
      50,
    );
  return { bare: median(times.bare), offer: median(times.offer), render: median(times.render) };
}

/** The pair compares what it says: the one read carries a token, the other a priced quote and the configs but none. */
async function expectOffer(url: string, token: boolean): Promise<void> {
  const body = (await (await fetch(url)).json()) as {
    quote?: { eligible: boolean };
    widget?: unknown;
    offer?: unknown;
  };
  if (!body.quote || !body.widget || body.quote.eligible !== token || (body.offer !== undefined) !== token) {
    throw new Error(
      `bench widget: ${url} answered ${JSON.stringify(body)}, not a quote ${token ? 'with' : 'without'} an offer`,
    );
  }
}

export async function benchWidget(): Promise<Measured[]> {
  const built = await buildOfferScript();
  process.stdout.write(
    `offer.js: ${built.code.length} bytes, ${built.gzipBytes} bytes gzip (goal <= ${GZIP_BUDGET})\n`,
  );
  const database = await benchDatabase();
  const db = createDb(database.url);
  try {
    await migrateToLatest(db);
    const domain = `bench-${Date.now()}.example.com`;
    await createStore(db, { name: 'Bench', domain });
    const { base: service, child: app } = await startService(database.url, randomBytes(32));
    try {
      if (CHROMIUM) {
        const t = await renderTimes(service, domain);
        process.stdout.write(
          `median of ${RUNS} first visits: bare page load ${t.bare.toFixed(1)} ms, page with the offer load ${t.offer.toFixed(1)} ms, element connection to first render ${t.render.toFixed(1)} ms\n`,
        );
      } else process.stdout.write('no Chromium: render times skipped\n');
      const read = `/v1/quote/insurance?store_url=${domain}`;
      const [eligible, ineligible] = ['subtotal=120', 'subtotal=2000000'];
      await expectOffer(`${service}${read}&${eligible}`, true);
      await expectOffer(`${service}${read}&${ineligible}`, false);
      const [withOffer, without] = await compare([
        {
          name: 'quote read, priced, widget configs, offer token signed, uncached',
          url: service,
          path: (n) => `${read}&${eligible}&n=${n}`,
        },
        {
          name: 'the same read, priced, widget configs, no token (not eligible), uncached',
          url: service,
          path: (n) => `${read}&${ineligible}&n=${n}`,
        },
      ]);
      printTable([withOffer!, without!]);
      process.stdout.write(`ratio with offer/without: ${(withOffer!.rps / without!.rps).toFixed(2)} (goal >= 0.90)\n`);
      return [withOffer!, without!];
    } finally {
      await stopProcess(app);
    }
  } finally {
    await db.destroy();
    await database.stop();
  }
}
