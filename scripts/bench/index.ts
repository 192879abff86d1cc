/**
 * `pnpm bench [name ...]`: every benchmark (or the named ones), each against its baseline in
 * the same run.
 */
import { benchAnalytics } from './analytics';
import { benchAuth } from './auth';
import { benchClaims } from './claims';
import { benchConcurrency } from './concurrency';
import { benchDashboard } from './dashboard';
import { benchExport } from './export';
import { benchFastPaths } from './fast-paths';
import { benchFiles } from './files';
import { benchGuard } from './guard';
import { benchOrders } from './orders';
import { benchPartner } from './partner';
import { benchPooler } from './pooler';
import { benchPublicRead } from './public-read';
import { benchRetention } from './retention';
import { benchRisk } from './risk';
import { benchTracking } from './tracking';
import { benchWebhooks } from './webhooks';
import { benchWidget } from './widget';
import { benchWrites } from './writes';

const BENCHES: [name: string, title: string, run: () => Promise<unknown>][] = [
  ['public-read', 'public read (shopper widget) against a bare node:http server', benchPublicRead],
  ['auth', 'authenticated read against a plain Express route; the token endpoint', benchAuth],
  ['partner', 'partner surface: quote, cohort read, invalidation across two processes', benchPartner],
  ['webhooks', 'webhook delivery against a plain fetch loop', benchWebhooks],
  ['orders', 'order writes against node:http + one upsert, by concurrency and with a subscriber', benchOrders],
  ['claims', 'claims list: first page against a page after 900,000 claims; claim filing', benchClaims],
  [
    'dashboard',
    'dashboard claim queue and claim page on 100,000 claims against the smallest tab (D50)',
    benchDashboard,
  ],
  ['export', 'claims export (D52): server memory streaming 100,000 rows against 1,000, and its time', benchExport],
  [
    'analytics',
    'store summary of a year on 100,000 orders and 10,000 claims against count(*) of the same orders (D52)',
    benchAnalytics,
  ],
  [
    'tracking',
    'inbound tracking webhook of five events against node:http + HMAC + one pg transaction (D54)',
    benchTracking,
  ],
  [
    'files',
    'photo uploads (D56) against writing the same bytes to disk; server memory at 20 uploads at once, and refusing 20',
    benchFiles,
  ],
  [
    'risk',
    'claim filing with the risk (D57) against without, and the photo reuse search at 100,000 photos in a store',
    benchRisk,
  ],
  ['writes', 'write paths and the quote against their baselines, PostgreSQL fsync on and off', benchWrites],
  ['pooler', 'order write and claim filing: PgBouncer in transaction mode against direct (D48)', benchPooler],
  [
    'retention',
    'webhook event retention: 1,000,000 old events pruned, order writes during the prune against without',
    benchRetention,
  ],
  [
    'widget',
    'storefront offer (D55): script gzip size, first render against a bare page, quote with offer against without',
    benchWidget,
  ],
  ['concurrency', 'authenticated read through pnpm start: WEB_CONCURRENCY=2 against 1', benchConcurrency],
  [
    'fast-paths',
    'each device of server/src/runtime/ on against off, and all against the stock libraries',
    benchFastPaths,
  ],
  [
    'guard',
    'the write rows in short, each against the ratio committed for this machine class (figures.json); fails on a loss of a third',
    benchGuard,
  ],
];

/** Run only when named: CI's short form of the write rows, which `writes` measures in full. */
const NAMED_ONLY = new Set(['guard']);

const only = process.argv.slice(2);
for (const [i, [name, title, run]] of BENCHES.entries()) {
  if (only.length > 0 ? !only.includes(name) : NAMED_ONLY.has(name)) continue;
  process.stdout.write(`${i > 0 ? '\n' : ''}# ${title}\n`);
  await run();
}
process.exit(process.exitCode ?? 0);
