/**
 * `pnpm openapi` writes openapi.json at the repository root from the contract;
 * `pnpm openapi --check` fails when the committed file differs from a fresh generation.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildOpenApi } from '@protection-service/contract/openapi';

export const OPENAPI_FILE = path.resolve(import.meta.dirname, '../openapi.json');

export function renderOpenApi(): string {
  return `${JSON.stringify(buildOpenApi(), null, 2)}\n`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const fresh = renderOpenApi();
  if (process.argv.includes('--check')) {
    let committed = '';
    try {
      committed = readFileSync(OPENAPI_FILE, 'utf8');
    } catch {}
    if (committed !== fresh) {
      process.stderr.write('openapi.json is out of date: run `pnpm openapi` and commit the result\n');
      process.exit(1);
    }
    process.stdout.write('openapi.json is up to date\n');
  } else {
    writeFileSync(OPENAPI_FILE, fresh);
    process.stdout.write(`wrote ${path.relative(process.cwd(), OPENAPI_FILE)}\n`);
  }
}
