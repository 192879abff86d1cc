import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { inject } from 'vitest';

const exec = promisify(execFile);
const EXAMPLES = path.resolve(import.meta.dirname, '../../examples');
const RECORDER = path.resolve(import.meta.dirname, 'record-sdk-calls-preload.ts');

/**
 * Runs `sdk/examples/<name>.ts` as a partner would (a Node process through tsx), with its
 * settings in the environment, and answers what it printed. `name` may name a subdirectory
 * (`2025-01-01/02-sync-orders`, an example's form for an earlier API version). A failing example rejects with
 * its output. Its SDK calls count towards the run's route coverage.
 */
export async function runExample(name: string, env: Record<string, string>): Promise<string> {
  try {
    const args = ['--import', 'tsx', '--import', RECORDER, path.join(EXAMPLES, `${name}.ts`)];
    const { stdout } = await exec(process.execPath, args, {
      env: { ...process.env, ...env, SDK_CALLS_DIR: inject('sdkCallsDir') },
      timeout: 60_000,
    });
    return stdout;
  } catch (e) {
    const { stdout, stderr } = e as { stdout?: string; stderr?: string };
    throw new Error(`example ${name} failed:\n${stdout ?? ''}${stderr ?? e}`);
  }
}
