/**
 * `pnpm lint:openapi` lints the committed documents, `openapi.json` (the latest version) and
 * that of every older version under `openapi/` (D44), with Redocly's recommended rules
 * (redocly.yaml) and with Spectral's OpenAPI and OWASP rules (.spectral.yaml), the pinned
 * versions of package.json. Any problem fails, warnings included: Redocly alone fails only on
 * errors.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { API_VERSIONS, LATEST_API_VERSION } from '@protection-service/contract';

const ROOT = path.resolve(import.meta.dirname, '..');
const run = (command: string, args: string[]) =>
  spawnSync(command, args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });

const DOCUMENTS = API_VERSIONS.map((v) => (v === LATEST_API_VERSION ? 'openapi.json' : `openapi/${v}.json`));

let failed = false;
for (const document of DOCUMENTS) {
  process.stdout.write(`${document}\n`);
  const redocly = run('pnpm', ['exec', 'redocly', 'lint', document, '--format=json']);
  let problems: { ruleId: string; severity: string; message: string; location?: { pointer?: string }[] }[];
  try {
    problems = (JSON.parse(redocly.stdout) as { problems: typeof problems }).problems;
  } catch {
    process.stderr.write(`redocly did not answer JSON:\n${redocly.stdout}\n${redocly.stderr}\n`);
    process.exit(1);
  }
  for (const p of problems) {
    process.stdout.write(`redocly ${p.severity} ${p.ruleId}: ${p.message} ${p.location?.[0]?.pointer ?? ''}\n`);
  }
  process.stdout.write(`redocly recommended: ${problems.length} problems\n`);

  const spectral = run('pnpm', ['exec', 'spectral', 'lint', document, '--fail-severity=hint', '--format=text']);
  process.stdout.write(spectral.stdout);
  if (spectral.status !== 0) process.stderr.write(spectral.stderr);
  process.stdout.write(`spectral oas + owasp: ${spectral.status === 0 ? 'no problems' : 'problems found'}\n`);
  failed ||= problems.length > 0 || spectral.status !== 0;
}
if (failed) process.exit(1);
