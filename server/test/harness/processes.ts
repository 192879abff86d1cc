import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
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

/**
 * A failing login whose body is still arriving when `child` (a server) gets SIGTERM: a
 * draining server must still answer it. Resolves with the status.
 */
export function loginAcrossSigterm(url: string, child: ChildProcess, email: string): Promise<number> {
  const body = JSON.stringify({ email, password: 'wrong password' });
  return new Promise<number>((resolve, reject) => {
    const req = http.request(`${url}/v1/auth/login`, {
      method: 'POST',
      agent: false,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.write(body.slice(0, 10));
    setTimeout(() => {
      child.kill('SIGTERM');
      setTimeout(() => req.end(body.slice(10)), 300);
    }, 200);
  });
}
