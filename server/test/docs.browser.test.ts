import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness/server';

/** The /docs page rendered by a real browser: runs wherever a Chromium is found. */
const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find(
  (p): p is string => !!p && existsSync(p),
);

describe.skipIf(!CHROMIUM)('GET /docs in headless Chromium', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('renders every operation of the contract from assets served by the server itself', async () => {
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    try {
      const page = await browser.newPage();
      const foreign: string[] = [];
      page.on('request', (req) => {
        if (!req.url().startsWith(server.baseUrl) && !req.url().startsWith('data:')) foreign.push(req.url());
      });
      await page.goto(`${server.baseUrl}/docs`);
      await page.waitForSelector('.opblock', { timeout: 30_000 });
      const operations = await page.locator('.opblock').count();
      const doc = (await (await server.request('/openapi.json')).json()) as { paths: Record<string, object> };
      const expected = Object.values(doc.paths).reduce((n, ops) => n + Object.keys(ops).length, 0);
      expect(operations).toBe(expected);
      expect(await page.locator('.opblock-summary-path').first().textContent()).toMatch(/^\//);
      expect(await page.title()).toContain('Protection Service');
      expect(foreign).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 90_000);
});
