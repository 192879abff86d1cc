/**
 * `pnpm lint:openapi` lints the committed openapi.json with Redocly's recommended rules
 * (redocly.yaml) and with Spectral's OpenAPI and OWASP rules (.spectral.yaml), the pinned
 * versions of package.json. Any problem fails, warnings included: Redocly alone fails only on
 * errors.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const run = (command: string, args: string[]) =>
  spawnSync(command, args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });

const redocly = run('pnpm', ['exec', 'redocly', 'lint', 'openapi.json', '--format=json']);
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

const spectral = run('pnpm', ['exec', 'spectral', 'lint', 'openapi.json', '--fail-severity=hint', '--format=text']);
process.stdout.write(spectral.stdout);
if (spectral.status !== 0) process.stderr.write(spectral.stderr);
process.stdout.write(`spectral oas + owasp: ${spectral.status === 0 ? 'no problems' : 'problems found'}\n`);

if (problems.length > 0 || spectral.status !== 0) process.exit(1);
