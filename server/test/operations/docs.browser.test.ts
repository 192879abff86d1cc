import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import express from 'express';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docs } from '../../src/http/docs';
import { AXE_OPTIONS, AXE_SOURCE, CHROMIUM, launchChromium, NO_CHROMIUM } from '../harness/browser';
import { startTestServer, type TestServer } from '../harness/server';

/** The /docs reference page (D47) rendered by a real browser: runs wherever a Chromium is found. */
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const OPENAPI_FILE = path.resolve(import.meta.dirname, '../../../openapi.json');

type Doc = { info: { title: string; version: string }; paths: Record<string, Record<string, { operationId: string }>> };

function operationIds(doc: Doc): string[] {
  return Object.values(doc.paths).flatMap((item) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([, op]) => op.operationId),
  );
}

/**
 * What went wrong while the page loaded: console errors, script errors, failed requests and
 * answers of 400 or more, and any request to another origin (the page is self-hosted); and
 * `settled`, which waits until no request of the page is in flight. A test that leaves the page
 * waits for it first, as a person picks a version once the page is shown: a request of the page
 * being left would be cancelled by the browser and counted as failed.
 */
function watch(page: Page, origin: string): { problems: string[]; settled: () => Promise<void> } {
  const problems: string[] = [];
  const inFlight = new Set<unknown>();
  page.on('request', (r) => inFlight.add(r));
  page.on('requestfinished', (r) => inFlight.delete(r));
  page.on('requestfailed', (r) => inFlight.delete(r));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`script: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`failed: ${r.url()} ${r.failure()?.errorText ?? ''}`));
  page.on('response', (r) => {
    if (r.status() >= 400) problems.push(`${r.status()}: ${r.url()}`);
  });
  page.on('request', (r) => {
    const url = r.url();
    if (!url.startsWith(origin) && !url.startsWith('data:') && !url.startsWith('blob:'))
      problems.push(`foreign: ${url}`);
  });
  return { problems, settled: () => expect.poll(() => inFlight.size).toBe(0) };
}

/**
 * axe-core on the page as the browser shows it, under the page's own policy: the script is
 * answered by the test at a path of the page's origin (the policy allows only the page's own
 * scripts), then run on `within`. WCAG 2.x A and AA rules and best practice: no serious or
 * critical one.
 */
async function expectAccessible(page: Page, origin: string, within = 'html'): Promise<void> {
  await page.route(`${origin}/__axe.js`, (route) =>
    route.fulfill({ contentType: 'application/javascript', body: AXE_SOURCE }),
  );
  await page.addScriptTag({ url: `${origin}/__axe.js` });
  const results = (await page.evaluate(
    ({ selector, options }) =>
      (globalThis as unknown as { axe: { run(c: string, o: object): Promise<unknown> } }).axe.run(selector, options),
    { selector: within, options: AXE_OPTIONS },
  )) as { violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[] };
  const serious = results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.impact} ${v.id}: ${v.help} (${v.nodes
          .slice(0, 5)
          .map((n) => n.target.join(' '))
          .join(', ')}${v.nodes.length > 5 ? `, and ${v.nodes.length - 5} more` : ''})`,
    );
  expect(serious).toEqual([]);
}

/** Redoc gives each operation a section `tag/<tag>/operation/<operationId>`, and a menu item of that id. */
const sectionSelector = (id: string) => `[data-section-id^="tag/"][data-section-id$="/operation/${id}"]`;
const menuSelector = (id: string) =>
  `ul:not([data-role="search:results"]) > li[data-item-id^="tag/"][data-item-id$="/operation/${id}"]`;
const operationSection = (page: Page, id: string) => page.locator(sectionSelector(id));

if (!CHROMIUM) console.warn(`[docs] reference page browser tests skipped: ${NO_CHROMIUM}`);

describe.skipIf(!CHROMIUM)('GET /docs in headless Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  beforeAll(async () => {
    [server, browser] = await Promise.all([startTestServer(), launchChromium()]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('renders every operation, with examples, search and code samples, from assets of the server itself', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const { problems } = watch(page, server.baseUrl);
    await page.goto(`${server.baseUrl}/docs`);
    expect(await page.title()).toContain('Protection Service');
    await page.waitForSelector('[data-section-id$="operation/upsertOrder"]', { timeout: 60_000 });
    const doc = (await (await server.request('/openapi.json')).json()) as Doc;
    const ids = operationIds(doc);
    expect(ids.length).toBeGreaterThan(0);
    // Every operation of the document has its section, and an item of the menu leading to it.
    // Counted in the page at once: one query each instead of two round trips an operation.
    const expected = ids.flatMap((id) => [
      [`section ${id}`, sectionSelector(id)],
      [`menu ${id}`, menuSelector(id)],
    ]);
    const missing = await page.evaluate(
      (pairs) =>
        pairs.filter(([, selector]) => document.querySelectorAll(selector!).length !== 1).map(([what]) => what),
      expected,
    );
    expect(missing).toEqual([]);

    // The SDK call of the operation, beside its curl, filled in with its example.
    const upsert = operationSection(page, 'upsertOrder');
    await upsert.getByRole('tab', { name: 'curl' }).click();
    await expect.poll(() => upsert.getByText('curl -X PUT', { exact: false }).count()).toBeGreaterThan(0);
    await upsert.getByRole('tab', { name: 'TypeScript SDK' }).click();
    await expect.poll(() => upsert.getByText('client.orders.upsert(', { exact: false }).count()).toBeGreaterThan(0);
    // The request's example, from the document.
    await upsert.getByRole('tab', { name: 'Payload' }).click();
    await expect.poll(() => upsert.getByText('"originalSourceOrderId"', { exact: false }).count()).toBeGreaterThan(0);

    // Search finds an operation by its summary, and the result leads to it.
    const search = page.getByRole('search').locator('input');
    await search.fill('fulfillment');
    const result = page.locator('[data-role="search:results"] li[data-item-id$="/operation/upsertOrderFulfillment"]');
    await expect.poll(() => result.count(), { timeout: 10_000 }).toBeGreaterThan(0);
    await result.first().click();
    await expect.poll(() => page.url()).toContain('operation/upsertOrderFulfillment');

    await expectAccessible(page, server.baseUrl);
    expect(problems).toEqual([]);
  }, 180_000);

  it('shows a version picker when it has several documents, and each document when picked', async () => {
    // Two dated documents (the committed one under two versions), served beside the page. What
    // is tested here is the picker: each holds the one path of upsertOrder (the first test
    // renders them all), so that two renders of the whole document do not double the test.
    const committed = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')) as Doc;
    const paths = Object.fromEntries(
      Object.entries(committed.paths).filter(([path, item]) =>
        operationIds({ ...committed, paths: { [path]: item } }).includes('upsertOrder'),
      ),
    );
    expect(Object.keys(paths)).toHaveLength(1);
    const versions = ['2025-01-01', '2026-12-01'];
    const app = express();
    for (const version of versions) {
      app.get(`/openapi/${version}.json`, (_req, res) => {
        res.json({
          ...committed,
          paths,
          info: { ...committed.info, title: `Protection Service API ${version}`, version },
        });
      });
    }
    app.use(
      docs(
        { publicBaseUrl: 'http://localhost', deploymentEnvironment: 'test' },
        versions.map((version) => ({ version, url: `/openapi/${version}.json`, label: version })),
      ),
    );
    const listening = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => listening.once('listening', resolve));
    const origin = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    try {
      const { problems, settled } = watch(page, origin);
      await page.goto(`${origin}/docs`);
      const picker = page.getByLabel('API version');
      expect(await picker.inputValue()).toBe('2025-01-01');
      await expect
        .poll(() => page.locator('h1').first().textContent(), { timeout: 60_000 })
        .toContain('Protection Service API 2025-01-01');
      await settled();
      await picker.selectOption('2026-12-01');
      await page.waitForURL(/version=2026-12-01/);
      await expect
        .poll(() => page.locator('h1').first().textContent(), { timeout: 60_000 })
        .toContain('Protection Service API 2026-12-01');
      expect(await page.getByLabel('API version').inputValue()).toBe('2026-12-01');
      await page.waitForSelector('[data-section-id$="operation/upsertOrder"]', { timeout: 60_000 });
      // The picker itself (the rest of the page is the first test's).
      await expectAccessible(page, origin, 'header');
      expect(problems).toEqual([]);
    } finally {
      await page.close();
      listening.closeAllConnections();
      await new Promise((resolve) => listening.close(resolve));
    }
  }, 180_000);
});
