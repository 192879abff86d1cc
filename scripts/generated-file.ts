import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The command line of a script that writes a file generated from the contract: writes
 * `fresh` to `file`, or with `--check` fails when the committed file differs from it.
 */
export function writeOrCheck(file: string, fresh: string, command: string): void {
  const relative = path.relative(process.cwd(), file);
  if (!process.argv.includes('--check')) {
    writeFileSync(file, fresh);
    process.stdout.write(`wrote ${relative}\n`);
    return;
  }
  let committed = '';
  try {
    committed = readFileSync(file, 'utf8');
  } catch {}
  if (committed !== fresh) {
    process.stderr.write(`${relative} is out of date: run \`${command}\` and commit the result\n`);
    process.exit(1);
  }
  process.stdout.write(`${relative} is up to date\n`);
}
