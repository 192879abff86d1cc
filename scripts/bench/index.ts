/** `pnpm bench`: every benchmark, each against its baseline in the same run. */
import { benchPublicRead } from './public-read';

process.stdout.write('# public read (shopper widget)\n');
await benchPublicRead();
process.exit(0);
