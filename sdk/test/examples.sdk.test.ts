import { existsSync } from 'node:fs';
import { LATEST_API_VERSION, SCOPES } from '@protection-service/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvePricing } from '../../server/src/domain/identity/apps';
import { freePort } from '../../server/src/free-port';
import { createApp, createOwner, dashboardTokenFor, installWithToken } from '../../server/test/harness/fixtures';
import { startMailRunner } from '../../server/test/harness/mail';
import { startTestServer, type TestServer } from '../../server/test/harness/server';
import { runExample } from './harness/examples';

const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find(
  (p): p is string => !!p && existsSync(p),
);
if (!CHROMIUM) console.warn('[sdk examples] 07 skipped: no Chromium found (install chromium or set CHROMIUM_PATH)');

/** The deprecated version whose forms of the examples live in sdk/examples/2025-01-01/ (D44). */
const OLD = '2025-01-01';
type Version = typeof LATEST_API_VERSION | typeof OLD;

interface Example {
  /** The file in sdk/examples (and, for `old`, in sdk/examples/2025-01-01), without `.ts`. */
  name: string;
  title: string;
  /** What the example prints, in both versions. */
  check(out: string): void;
  /**
   * Its 2025-01-01 form: `false`, none; `true`, one that prints what the latest does; a function,
   * one that also prints the earlier shapes it reads, checked there.
   */
  old: boolean | ((out: string) => void);
  /** A delivering runner while it runs, so that a test store's events reach its handler. */
  delivers?: boolean;
  chromium?: boolean;
}

/**
 * The numbered examples in sdk/examples run against the real server, as a partner runs them:
 * each in the latest version, and its 2025-01-01 form (sdk/examples/2025-01-01/) as a partner
 * still on that version writes it. Each version has its own store and app on the same server, so
 * both see the same store from scratch. 06 has no 2025-01-01 form: its whole flow is dashboard
 * routes and webhook deliveries, and neither answers by version (a 2025-01-01 webhook differs
 * only in the envelope's `apiVersion`, which 08's form checks). Nor has 07: the install has no
 * version, and its one versioned call, `GET /v2/settings` with the new token, is 01's form's too.
 * Nor has 09: the tracking helpers answer alike in every version, and the one thing it shows that
 * versions read differently, the claim's `LOST_IN_TRANSIT`, is null before 2027-01-15 (D54).
 */
const EXAMPLES: Example[] = [
  {
    name: '01-install-and-tokens',
    title: 'installs with PKCE, exchanges the code, and refreshes with rotation',
    check(out) {
      expect(out).toMatch(/^installed with scopes: .*store:read/m);
      expect(out).toContain('refreshed: the new refresh token replaces the old one');
      expect(out).toMatch(/^store credit type: (GIFT_CARD|DISCOUNT_CODE)$/m); // on 2025-01-01, without {data}
      expect(out).toContain('refresh token rotated: true');
    },
    old: true,
  },
  {
    name: '02-sync-orders',
    title: 'syncs an order and its fulfillment with client credentials',
    check(out) {
      expect(out).toMatch(/^order example-\d+: protection ACTIVE$/m);
      expect(out).toContain('fulfillments: ful-1 IN_TRANSIT');
    },
    old: true,
  },
  {
    name: '03-file-and-approve-a-claim',
    title: 'files a claim once under its own key, approves it, and cannot deny it after',
    check(out) {
      expect(out).toMatch(/^filed \S+; sent twice, replayed: true$/m);
      expect(out).toMatch(/is NEW, linked to policy: true$/m);
      expect(out).toContain('approved: APPROVED, resolutions: 1');
      expect(out).toMatch(/^deny after approve: 409 \S/m);
    },
    old: true,
  },
  {
    name: '04-page-all-claims',
    title: 'pages through every claim',
    check(out) {
      expect(out).toMatch(/^claims: 1$/m); // the one example 03 filed on this version's store
      expect(out).toContain('  APPROVED: 1');
    },
    old: true,
  },
  {
    name: '05-cohort-pricing-and-quote',
    title: 'prices a cohort, quotes it, and reads it as the widget does',
    check(out) {
      expect(out).toMatch(/^quote for 150\.00: premium 3 \(partner, cohort cheap-\d+\)$/m);
      expect(out).toContain('widget pricing: partner, 2 rules, premium at 50.00: 1.5');
    },
    old: (out) => {
      expect(out).toContain('context Pricing experiment, variantKey main');
      expect(out).toContain('price set terms: flat 1.5, percentage 2');
      expect(out).toContain('quote answered 200');
    },
  },
  {
    name: '06-receive-webhooks',
    title: 'verifies webhook deliveries in a small handler, refuses a forged one, survives a rotation',
    check(out) {
      expect(out.match(/^verified claim\/approved for store /gm)).toHaveLength(2);
      expect(out).toContain('test event delivered: true');
      expect(out).toContain('refused a delivery: signature');
      expect(out).toContain('after rotation, delivered: true');
    },
    old: false,
  },
  {
    name: '08-test-mode',
    title: 'makes a test store, drives a claim to APPROVED with the test helpers, and verifies its webhook (D45)',
    delivers: true,
    check(out) {
      expect(out).toMatch(/^test store example-dev-shop-[a-z0-9]+\.test, livemode false$/m);
      expect(out).toContain('client.livemode: false');
      expect(out).toContain('claim APPROVED, store credit e-mail NOT_SENT');
      expect(out).toContain('verified claim/approved, livemode false');
      expect(out).toMatch(/^e-mails kept, not sent: [1-9]/m);
      expect(out).toContain('test store deleted');
    },
    old: (out) => {
      expect(out).toContain('verified claim/approved, livemode false, apiVersion 2025-01-01');
    },
  },
  {
    name: '09-simulate-a-lost-package',
    title: 'files a claim for a package scanned once, as of eight days later, with its webhooks and e-mail (D54, D45)',
    delivers: true,
    check(out) {
      expect(out).toMatch(/^test store lost-package-shop-[a-z0-9]+\.test, tracking mode file, lost after 7 days$/m);
      const [, asOf, since] =
        out.match(/^as of (\S+): lost, filed: no carrier scan for 8 days since (\S+) \(lost after 7\)$/m) ?? [];
      expect(Date.parse(asOf!) - Date.parse(since!)).toBe(8 * 86_400_000);
      expect(out).toContain(`package LOST-1001: in_transit since ${since}`);
      const [, claimId] = out.match(/^claim (clm_\w+) NEW, LOST_IN_TRANSIT, filed from INTERNAL by tracking$/m) ?? [];
      expect(claimId).toBeDefined();
      expect(out).toContain('verified claim/created, claimType LOST_IN_TRANSIT');
      expect(out).toContain('verified tracking/alert: lost, filed');
      expect(out).toContain("shopper's e-mail to shopper@example.com: We received your claim for order #1001");
      expect(out).toContain(`asked again: skipped: the package already has its claim ${claimId}\n`);
      expect(out).toContain('test store deleted');
    },
    old: false,
  },
  {
    name: '07-install-in-a-browser',
    title: 'installs through the authorization page in headless Chromium (D40)',
    chromium: true,
    check(out) {
      expect(out).toContain('merchant saw: Installed. You can close this tab.');
      expect(out).toMatch(/^installed with scopes: .*order:read/m);
      expect(out).toMatch(/^store credit type: (GIFT_CARD|DISCOUNT_CODE)$/m);
    },
    old: false,
  },
];

describe('SDK examples', () => {
  let server: TestServer;
  const envs = {} as Record<Version, Record<string, string>>;

  /** A store, its owner, and an app installed on it with every scope: the examples' settings. */
  async function settingsFor(label: string): Promise<Record<string, string>> {
    const owner = await createOwner(server.db, label);
    // Example 07's redirect handler listens on loopback; the app registers that URI too.
    const browserRedirectUri = `http://127.0.0.1:${await freePort()}/callback`;
    const app = await createApp(server, owner.user.id, {
      requestedScopes: [...SCOPES],
      redirectUris: ['https://app.example.com/callback', browserRedirectUri],
    });
    // An operator lets the app be granted the pricing scopes (D9), so the install grants them all.
    await approvePricing(server.db, app.clientId);
    await installWithToken(server, app.clientId, owner.store.id, [...SCOPES]);
    return {
      SVC_BASE_URL: server.baseUrl,
      SVC_CLIENT_ID: app.clientId,
      SVC_CLIENT_SECRET: app.clientSecret,
      SVC_STORE_ID: owner.store.id,
      SVC_REDIRECT_URI: 'https://app.example.com/callback',
      SVC_DASHBOARD_TOKEN: await dashboardTokenFor(server, owner.user.id),
      SVC_BROWSER_REDIRECT_URI: browserRedirectUri,
      SVC_MERCHANT_EMAIL: owner.user.email,
      SVC_MERCHANT_PASSWORD: owner.password,
      ...(CHROMIUM ? { CHROMIUM_PATH: CHROMIUM } : {}),
    };
  }

  beforeAll(async () => {
    server = await startTestServer();
    envs[LATEST_API_VERSION] = await settingsFor('sdk-examples');
    envs[OLD] = await settingsFor('sdk-examples-2025');
  });
  afterAll(async () => {
    await server.close();
  });

  async function run(version: Version, example: Example): Promise<string> {
    const runner = example.delivers ? await startMailRunner(server, {}) : undefined;
    try {
      return await runExample(version === OLD ? `${OLD}/${example.name}` : example.name, envs[version]);
    } finally {
      await runner?.delivery.stop();
    }
  }

  describe(`${LATEST_API_VERSION} (latest)`, () => {
    for (const example of EXAMPLES) {
      it.skipIf(example.chromium && !CHROMIUM)(
        `${example.name.slice(0, 2)}: ${example.title}`,
        async () => example.check(await run(LATEST_API_VERSION, example)),
        90_000,
      );
    }
  });

  describe(`${OLD}, as a partner still on it writes them`, () => {
    for (const example of EXAMPLES.filter((e) => e.old)) {
      it.skipIf(example.chromium && !CHROMIUM)(
        `${example.name.slice(0, 2)}: ${example.title}`,
        async () => {
          const out = await run(OLD, example);
          example.check(out);
          if (typeof example.old === 'function') example.old(out);
          // Every form calls a versioned route, served by 2025-01-01 and marked deprecated.
          expect(out).toMatch(
            /^api version 2025-01-01 is deprecated, sunset \w{3}, \d\d \w{3} \d{4} [\d:]+ GMT; upgrade: <\S+\/docs\/versions#2025-01-01>; rel="deprecation"$/m,
          );
          // A field read in the later shape (under `data`, say) would print undefined.
          expect(out).not.toContain('undefined');
        },
        90_000,
      );
    }
  });
});
