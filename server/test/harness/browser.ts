import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
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

/**
 * Playwright's own `--disable-features` (playwright-core 1.65, chromiumSwitches.ts): Chromium
 * reads only the last of the switch, so the harness's one repeats them; `startChromium` checks
 * at launch that the list Playwright passed is all here.
 */
const PLAYWRIGHT_DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
  'msForceBrowserSignIn',
  'msEdgeUpdateLaunchServicesPreferredVersion',
];

/**
 * Browser UI that Chromium draws for every window even headless: the omnibox popup's two WebUI
 * documents (chrome://omnibox-popup.top-chrome/), in a renderer process of their own beside each
 * page's. Without them a new page starts one renderer instead of two and costs about half the
 * CPU (0.62 → 0.36 CPU-s on Chromium 156), a navigation a third less (0.19 → 0.13), and the
 * browser test files together 787 → 514 CPU-s.
 */
const NO_BROWSER_UI = ['WebUIOmniboxPopup', 'WebUIOmniboxAimPopup'];

async function startChromium(): Promise<Browser> {
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
      // Without strict site isolation a page's navigations stay in its renderer process instead
      // of starting a new one each time (20 loads of one page: 2 processes instead of 10, a third
      // of the CPU). Cross-origin rules (CSP, CORS, cookies, frames) hold the same in one process.
      '--disable-site-isolation-trials',
      `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, ...NO_BROWSER_UI].join(',')}`,
    ],
  });
  const dropped = playwrightFeaturesDropped();
  if (dropped.length) {
    await browser.close();
    throw new Error(`Playwright disables features the harness's --disable-features lacks: ${dropped.join(', ')}`);
  }
  return browser;
}

/**
 * The features Playwright disabled on the Chromium this process started (its first
 * `--disable-features`, read from the process's command line) that the harness's list lacks.
 * None where /proc cannot tell (not Linux).
 */
function playwrightFeaturesDropped(): string[] {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((pid) => /^\d+$/.test(pid));
  } catch {
    return [];
  }
  const ours = new Set(PLAYWRIGHT_DISABLED_FEATURES);
  for (const pid of pids) {
    let argv: string[];
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) !== process.pid) continue;
      argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    const lists = argv.filter((a) => a.startsWith('--disable-features='));
    if (!argv.includes('--remote-debugging-pipe') || lists.length < 2) continue;
    return lists[0]!
      .slice('--disable-features='.length)
      .split(',')
      .filter((f) => f && !ours.has(f));
  }
  return [];
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
