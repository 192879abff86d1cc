import { spawn } from 'node:child_process';
import path from 'node:path';

/** The repository root: where `pnpm start` and `pnpm cli` run. */
export const ROOT = path.resolve(import.meta.dirname, '../../..');

/** As `pnpm start` and `pnpm cli` run: one node process with the tsx loader. */
export const NODE_ARGS = ['--import', 'tsx'];

/** Runs a TypeScript entry point of the repository to its end. */
export function runScript(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...NODE_ARGS, ...args], { cwd: ROOT, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
