/**
 * `pnpm openapi` writes openapi.json at the repository root from the contract;
 * `pnpm openapi --check` fails when the committed file differs from a fresh generation.
 */
import path from 'node:path';
import { buildOpenApi } from '@protection-service/contract/openapi';
import { writeOrCheck } from './generated-file';

export const OPENAPI_FILE = path.resolve(import.meta.dirname, '../openapi.json');

export function renderOpenApi(): string {
  return `${JSON.stringify(buildOpenApi(), null, 2)}\n`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  writeOrCheck(OPENAPI_FILE, renderOpenApi(), 'pnpm openapi');
}
