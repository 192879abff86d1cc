import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { expect } from 'vitest';

/**
 * Headless Chromium for the browser tests (/docs, and the pages of D40 and D41): the Debian
 * package, or CHROMIUM_PATH. Where none is installed the browser tests skip, and say so.
 */
export const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find(
  (p): p is string => !!p && existsSync(p),
);
export const NO_CHROMIUM = 'no Chromium found (install the chromium package or set CHROMIUM_PATH)';

async function startChromium(): Promise<Browser> {
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
      // Without strict site isolation a page's navigations stay in its renderer process instead
      // of starting a new one each time (20 loads of one page: 2 processes instead of 10, a third
      // of the CPU). Cross-origin rules (CSP, CORS, cookies, frames) hold the same in one process.
      // (Not `--disable-features`: Playwright passes its own, and Chromium keeps only the last.)
      '--disable-site-isolation-trials',
    ],
  });
}

/** The browser the test files of this worker share, started by the first of them. */
let shared: Promise<Browser> | undefined;

/**
 * Headless Chromium for one test file. The files a worker runs, one after another, share one
 * browser (a launch costs about 2 s of CPU, and 21 files need one): each file gets a handle
 * whose `newContext` and `newPage` it keeps, and whose `close()` closes those and nothing
 * else. A browser that went away (it crashed) is started again for the next file.
 */
export async function launchChromium(): Promise<Browser> {
  const start = () => {
    shared = startChromium().catch((err: unknown) => {
      shared = undefined;
      throw err;
    });
    return shared;
  };
  let browser = await (shared ?? start());
  if (!browser.isConnected()) browser = await start();
  const mine = new Set<BrowserContext>();
  const keep = (context: BrowserContext) => {
    mine.add(context);
    context.once('close', () => mine.delete(context));
    return context;
  };
  return new Proxy(browser, {
    get(target, property) {
      switch (property) {
        case 'newContext':
          return async (options?: BrowserContextOptions) => keep(await target.newContext(options));
        case 'newPage':
          return async (options?: BrowserContextOptions) => {
            const page = await target.newPage(options);
            keep(page.context());
            return page;
          };
        case 'contexts':
          return () => [...mine];
        case 'close':
          return async () => {
            await Promise.all([...mine].map((context) => context.close()));
          };
        default: {
          const value: unknown = Reflect.get(target, property, target);
          return typeof value === 'function' ? value.bind(target) : value;
        }
      }
    },
  });
}

export const AXE_SOURCE = (createRequire(import.meta.url)('axe-core') as { source: string }).source;

/**
 * What the pages are held to: WCAG 2.x A and AA rules and axe's best practice. Every violation
 * comes with every node; of the rules that passed, one node each.
 */
export const AXE_OPTIONS = {
  runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
  resultTypes: ['violations'],
} as const;

/**
 * One page per browser and origin that bypasses the pages' script policy and holds axe-core,
 * loaded once: each check puts the document under test in place of the page's own (with its
 * URL, so its stylesheets load as they did), instead of a context, a navigation and half a
 * megabyte of script to parse each time (about 2 s a check on a busy 2-core machine).
 * Checks of one browser take turns.
 */
const axePages = new WeakMap<Browser, { origin: string; page: Promise<Page>; turn: Promise<unknown> }>();

async function axePage(browser: Browser, origin: string): Promise<Page> {
  const context = await browser.newContext({ bypassCSP: true });
  const page = await context.newPage();
  const blank = `${origin}/.axe`;
  await page.route(blank, (route) => route.fulfill({ contentType: 'text/html', body: '<!doctype html><html></html>' }));
  await page.goto(blank);
  await page.addScriptTag({ content: AXE_SOURCE });
  return page;
}

/**
 * axe-core on the page as it is (WCAG 2.x A and AA rules): no serious or critical violation.
 * The pages allow no script, so axe runs in a page of a context that bypasses the policy (one
 * for all checks of the browser, `axePages`), on the same document.
 */
export async function expectAccessible(browser: Browser, page: Page, label: string): Promise<void> {
  const { origin } = new URL(page.url());
  let held = axePages.get(browser);
  if (!held || held.origin !== origin) {
    // The page of the origin before, if any, is closed once its last check has run.
    const before = held;
    if (before) void before.turn.then(async () => (await before.page).context().close()).catch(() => undefined);
    held = { origin, page: axePage(browser, origin), turn: Promise.resolve() };
    axePages.set(browser, held);
  }
  const mine = held.turn.then(async () => checkAccessible(await held.page, page, label));
  held.turn = mine.catch(() => undefined);
  await mine;
}

async function checkAccessible(copy: Page, page: Page, label: string): Promise<void> {
  const viewport = page.viewportSize();
  if (viewport) await copy.setViewportSize(viewport);
  // The document as the page has it, at its URL; its stylesheets fetched from the server before axe runs.
  await copy.evaluate(
    async ({ html, url }) => {
      history.replaceState(null, '', url);
      const parsed = new DOMParser().parseFromString(html, 'text/html');
      document.replaceChild(document.adoptNode(parsed.documentElement), document.documentElement);
      const sheets = [...document.querySelectorAll<HTMLLinkElement>('link[rel="stylesheet"]')];
      await Promise.all(
        sheets.map(
          (l) =>
            l.sheet ??
            new Promise((done) => {
              l.addEventListener('load', done);
              l.addEventListener('error', done);
            }),
        ),
      );
    },
    { html: await page.content(), url: page.url() },
  );
  const results = (await copy.evaluate(
    (options) => (globalThis as unknown as { axe: { run(o: object): Promise<unknown> } }).axe.run(options),
    AXE_OPTIONS,
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
