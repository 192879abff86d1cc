/**
 * `pnpm openapi` writes the OpenAPI document of every dated API version (D44) from the
 * contract: `openapi/<version>.json`, and `openapi.json` at the repository root, the latest.
 * `pnpm openapi --check` fails when a committed file differs from a fresh generation.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { API_VERSIONS, type ApiVersion, LATEST_API_VERSION } from '@protection-service/contract';
import { buildOpenApi } from '@protection-service/contract/openapi';
import { writeOrCheck } from './generated-file';

export const OPENAPI_FILE = path.resolve(import.meta.dirname, '../openapi.json');
export const OPENAPI_DIR = path.resolve(import.meta.dirname, '../openapi');

/** The committed document of one version. */
export const openApiFileOf = (version: ApiVersion) => path.join(OPENAPI_DIR, `${version}.json`);

export function renderOpenApi(version: ApiVersion = LATEST_API_VERSION): string {
  return `${JSON.stringify(buildOpenApi({ version }), null, 2)}\n`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  mkdirSync(OPENAPI_DIR, { recursive: true });
  for (const version of API_VERSIONS) {
    const text = renderOpenApi(version);
    writeOrCheck(openApiFileOf(version), text, 'pnpm openapi');
    if (version === LATEST_API_VERSION) writeOrCheck(OPENAPI_FILE, text, 'pnpm openapi');
  }
}
