/** `pnpm bench`: every benchmark, each against its baseline in the same run. */
import { benchAuth } from './auth';
import { benchConcurrency } from './concurrency';
import { benchPublicRead } from './public-read';
import { benchWebhooks } from './webhooks';

process.stdout.write('# public read (shopper widget) against a bare node:http server\n');
await benchPublicRead();
process.stdout.write('\n# authenticated read and token endpoint against the public read\n');
await benchAuth();
process.stdout.write('\n# webhook delivery against a plain fetch loop\n');
await benchWebhooks();
process.stdout.write('\n# authenticated read through pnpm start: WEB_CONCURRENCY=2 against 1\n');
await benchConcurrency();
process.exit(0);
