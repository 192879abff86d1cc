/**
 * `pnpm lint:openapi` lints the committed documents, `openapi.json` (the latest version) and
 * that of every older version under `openapi/` (D44), with Redocly's recommended rules
 * (redocly.yaml) and with Spectral's OpenAPI and OWASP rules (.spectral.yaml), the pinned
 * versions of package.json. Any problem fails, warnings included: Redocly alone fails only on
 * errors. Each linter is a process of its own on one core: they run as many at a time as there
 * are cores, and print in order.
 */
import { execFile } from 'node:child_process';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { API_VERSIONS, LATEST_API_VERSION } from '@protection-service/contract';

const ROOT = path.resolve(import.meta.dirname, '..');

interface Ran {
  status: number;
  stdout: string;
  stderr: string;
}

/** A linter's exit status and output; a status other than 0 is a verdict, not an error. */
function run(command: string, args: string[]): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      // An exit status is a number; a command that did not run (or printed too much) has none.
      const exited = !err || typeof err.code === 'number';
      const status = err ? (exited ? (err.code as number) : 1) : 0;
      resolve({ status, stdout, stderr: exited ? stderr : `${stderr}${err}` });
    });
  });
}

/** What one linter printed of one document, and whether it found a problem. */
interface Verdict {
  out: string;
  err: string;
  failed: boolean;
}

async function redocly(document: string): Promise<Verdict> {
  const ran = await run('pnpm', ['exec', 'redocly', 'lint', document, '--format=json']);
  let problems: { ruleId: string; severity: string; message: string; location?: { pointer?: string }[] }[];
  try {
    problems = (JSON.parse(ran.stdout) as { problems: typeof problems }).problems;
  } catch {
    return { out: '', err: `redocly did not answer JSON:\n${ran.stdout}\n${ran.stderr}\n`, failed: true };
  }
  const lines = problems.map(
    (p) => `redocly ${p.severity} ${p.ruleId}: ${p.message} ${p.location?.[0]?.pointer ?? ''}\n`,
  );
  return {
    out: `${lines.join('')}redocly recommended: ${problems.length} problems\n`,
    err: '',
    failed: problems.length > 0,
  };
}

async function spectral(document: string): Promise<Verdict> {
  const ran = await run('pnpm', ['exec', 'spectral', 'lint', document, '--fail-severity=hint', '--format=text']);
  const ok = ran.status === 0;
  return {
    out: `${ran.stdout.replace(/([^\n])$/, '$1\n')}spectral oas + owasp: ${ok ? 'no problems' : 'problems found'}\n`,
    err: ok ? '' : ran.stderr,
    failed: !ok,
  };
}

const DOCUMENTS = API_VERSIONS.map((v) => (v === LATEST_API_VERSION ? 'openapi.json' : `openapi/${v}.json`));
const jobs = DOCUMENTS.flatMap((document) => [() => redocly(document), () => spectral(document)]);

/** The jobs, as many at a time as `width`; their results in the jobs' order. */
async function inTurns<T>(jobs: (() => Promise<T>)[], width: number): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const index = next++;
      results[index] = await jobs[index]!();
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
  return results;
}

const verdicts = await inTurns(jobs, availableParallelism());

let failed = false;
for (const [index, { out, err, failed: found }] of verdicts.entries()) {
  if (index % 2 === 0) process.stdout.write(`${DOCUMENTS[index / 2]}\n`);
  process.stdout.write(out);
  if (err) process.stderr.write(err);
  failed ||= found;
}
if (failed) process.exit(1);
