/** `pnpm bench`: every benchmark, each against its baseline in the same run. */
import { benchAuth } from './auth';
import { benchPartner } from './partner';
import { benchPublicRead } from './public-read';
import { benchWebhooks } from './webhooks';

process.stdout.write('# public read (shopper widget) against a bare node:http server\n');
await benchPublicRead();
process.stdout.write('\n# authenticated read and token endpoint against the public read\n');
await benchAuth();
process.stdout.write('\n# partner surface: quote, cohort read, invalidation across two processes\n');
await benchPartner();
process.stdout.write('\n# webhook delivery against a plain fetch loop\n');
await benchWebhooks();
process.exit(0);
