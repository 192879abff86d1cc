import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, launchChromium } from '../harness/browser';
import { startTestServer, type TestServer } from '../harness/server';

/** The /docs page rendered by a real browser: runs wherever a Chromium is found. */
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

describe.skipIf(!CHROMIUM)('GET /docs in headless Chromium', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('renders every operation of the contract from assets served by the server itself', async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const foreign: string[] = [];
      page.on('request', (req) => {
        if (!req.url().startsWith(server.baseUrl) && !req.url().startsWith('data:')) foreign.push(req.url());
      });
      await page.goto(`${server.baseUrl}/docs`);
      await page.waitForSelector('.opblock', { timeout: 30_000 });
      const doc = (await (await server.request('/openapi.json')).json()) as { paths: Record<string, object> };
      const expected = Object.values(doc.paths).reduce(
        (n, item) => n + Object.keys(item).filter((k) => METHODS.includes(k)).length,
        0,
      );
      expect(expected).toBeGreaterThan(0);
      // docExpansion 'list' opens every tag section, so each operation is one `.opblock`.
      await expect.poll(() => page.locator('.opblock').count(), { timeout: 10_000 }).toBe(expected);
      expect(await page.locator('.opblock-tag-section.is-open').count()).toBe(
        await page.locator('.opblock-tag').count(),
      );
      // The document and its `$ref`s resolved: swagger-ui shows no errors box.
      expect(await page.locator('.errors-wrapper').count()).toBe(0);
      expect(await page.locator('.opblock-summary-path').first().textContent()).toMatch(/^\//);
      expect(await page.title()).toContain('Protection Service');
      expect(foreign).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 90_000);
});
