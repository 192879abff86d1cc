import { createServer, type Server } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, expectAccessible, launchChromium, NO_CHROMIUM } from '../harness/browser';

/**
 * The accessibility check every page test runs (`expectAccessible`) puts each document in
 * place of the last in one page that holds axe-core: it still sees what the document's
 * stylesheet does (contrast) and its root element (lang), and one document's faults do not
 * stay for the next.
 */
if (!CHROMIUM) console.warn(`[pages] accessibility check tests skipped: ${NO_CHROMIUM}`);

/** `/plain`, `/faint` (grey on white, from its stylesheet), `/nolang` (no lang on <html>). */
function pages(): Server {
  return createServer((req, res) => {
    if (req.url?.startsWith('/style.css')) {
      res.setHeader('content-type', 'text/css');
      res.end(
        req.url.includes('faint') ? 'p { color: #eee; background: #fff }' : 'p { color: #111; background: #fff }',
      );
      return;
    }
    const lang = req.url === '/nolang' ? '' : ' lang="en"';
    res.setHeader('content-type', 'text/html');
    res.end(`<!doctype html><html${lang}><head><title>Page</title>
      <link rel="stylesheet" href="/style.css?${req.url?.slice(1)}"></head>
      <body><main><h1>A page</h1><p>Some words to read.</p></main></body></html>`);
  });
}

describe.skipIf(!CHROMIUM)('the accessibility check of the page tests', () => {
  let server: Server;
  let base: string;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    server = pages();
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    browser = await launchChromium();
    page = await browser.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    server?.close();
  });

  /** What the check refused on the page at `path` (empty when it passed). */
  async function refused(path: string): Promise<string> {
    await page.goto(`${base}${path}`);
    const error = await expectAccessible(browser, page, path).catch((e: unknown) => e);
    return error === undefined ? '' : JSON.stringify((error as { actual?: unknown }).actual ?? String(error));
  }

  it("sees the document's stylesheet and root element, and each document alone", async () => {
    expect(await refused('/plain')).toBe('');
    expect(await refused('/faint')).toMatch(/serious color-contrast/);
    expect(await refused('/nolang')).toMatch(/serious html-has-lang/);
    expect(await refused('/plain')).toBe('');
  });
});
