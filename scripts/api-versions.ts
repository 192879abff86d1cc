/**
 * `pnpm api-versions` writes `docs/api-versions.md`, the changelog of the dated API versions
 * (D44), from the version changes of the contract; `pnpm api-versions --check` fails when the
 * committed file differs from a fresh generation (CI runs it, as it does `pnpm openapi --check`).
 */
import path from 'node:path';
import { changelogMarkdown } from '@protection-service/contract';
import { writeOrCheck } from './generated-file';

export const API_VERSIONS_FILE = path.resolve(import.meta.dirname, '../docs/api-versions.md');

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  writeOrCheck(API_VERSIONS_FILE, changelogMarkdown(), 'pnpm api-versions');
}
