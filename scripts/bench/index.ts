/** `pnpm bench`: every benchmark, each against its baseline in the same run. */
import { benchAuth } from './auth';
import { benchClaims } from './claims';
import { benchPublicRead } from './public-read';

process.stdout.write('# public read (shopper widget) against a bare node:http server\n');
await benchPublicRead();
process.stdout.write('\n# authenticated read and token endpoint against the public read\n');
await benchAuth();
// Claims (D24): the list at depth against its first page, and filing.
process.stdout.write('\n# claims list: first page against a page after 900,000 claims; claim filing\n');
await benchClaims();
process.exit(0);
