import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { expect } from 'vitest';

/**
 * Headless Chromium for the browser tests (/docs, and the pages of D40 and D41): the Debian
 * package, or CHROMIUM_PATH. Where none is installed the browser tests skip, and say so.
 */
export const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find(
  (p): p is string => !!p && existsSync(p),
);
export const NO_CHROMIUM = 'no Chromium found (install the chromium package or set CHROMIUM_PATH)';

export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
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
}

const AXE_SOURCE = (createRequire(import.meta.url)('axe-core') as { source: string }).source;

/**
 * axe-core on the page as it is (WCAG 2.x A and AA rules): no serious or critical violation.
 * The pages allow no script, so axe runs from a second page of a context that bypasses the
 * policy, loaded with the same document.
 */
export async function expectAccessible(browser: Browser, page: Page, label: string): Promise<void> {
  const context = await browser.newContext({ bypassCSP: true, viewport: page.viewportSize() ?? undefined });
  try {
    const copy = await context.newPage();
    await copy.route('**/*', async (route) => {
      const url = route.request().url();
      // The document as the first page had it; its stylesheet fetched from the server.
      if (url === page.url()) return route.fulfill({ contentType: 'text/html', body: await page.content() });
      return route.continue();
    });
    await copy.goto(page.url());
    await copy.addScriptTag({ content: AXE_SOURCE });
    const results = (await copy.evaluate(() =>
      (globalThis as unknown as { axe: { run(o: object): Promise<unknown> } }).axe.run({
        runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
      }),
    )) as {
      passes: unknown[];
      violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[];
    };
    // axe ran on the document (and its stylesheet: the contrast rules need it).
    expect(results.passes.length, `axe on ${label}`).toBeGreaterThan(10);
    const serious = results.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
    expect(serious, `axe on ${label}`).toEqual([]);
  } finally {
    await context.close();
  }
}

const SCREENSHOTS = path.resolve(import.meta.dirname, '../../../.tmp/pages');

/** The page at phone (390 px) and desktop (1280 px) widths, under .tmp/pages/, for a person to look at. */
export async function screenshots(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const before = page.viewportSize();
  for (const [width, label] of [
    [390, 'phone'],
    [1280, 'desktop'],
  ] as const) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
    await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-${label}.png`), fullPage: true });
  }
  if (before) await page.setViewportSize(before);
}

/** D40, D41, D50: every form that posts carries the session's CSRF token (search forms are GETs). */
export async function expectFormsCarryCsrf(page: Page): Promise<void> {
  expect(await page.locator('form[method="post"]').count()).toBeGreaterThan(0);
  expect(await page.locator('form[method="post"]:not(:has(input[type="hidden"][name="csrf"]))').count()).toBe(0);
}
