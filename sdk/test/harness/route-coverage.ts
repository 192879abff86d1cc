import { appendFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { threadId } from 'node:worker_threads';
import { contract } from '@protection-service/contract';
import { USER_AGENT } from '../../src/client';

/**
 * Which contract operations the test run called through the SDK against the service (the
 * architecture's check 3). Each test worker records the SDK's requests (recognised by its
 * user-agent) that the service answered, as `group.operation` lines in a directory shared by
 * the run; the run's teardown reads them all.
 */

interface Operation {
  name: string;
  method: string;
  pattern: RegExp;
}

/** Every operation of the contract, in contract order (literal paths before parameters). */
export const OPERATIONS: readonly Operation[] = Object.entries(contract).flatMap(([group, routes]) =>
  Object.entries(routes as Record<string, { method: string; path: string }>).map(([name, route]) => ({
    name: `${group}.${name}`,
    method: route.method,
    pattern: new RegExp(`^${route.path.replace(/:\w+/g, '[^/]+')}$`),
  })),
);

/** `claims.file` for `POST http://host/v1/claims/1001`; undefined for a path no route has. */
export function operationOf(method: string, url: string): string | undefined {
  const { pathname } = new URL(url);
  return OPERATIONS.find((op) => op.method === method && op.pattern.test(pathname))?.name;
}

/** Wraps this worker's global fetch to record every request the SDK sends. */
export function recordSdkCalls(dir: string): void {
  mkdirSync(dir, { recursive: true });
  globalThis.fetch = recording(globalThis.fetch, path.join(dir, `${process.pid}-${threadId}.log`));
}

/**
 * `inner`, appending to `file` the operation of each SDK request the service answered. The
 * SDK calls fetch(url, init) with plain headers. Only answers of the service count: it stamps
 * each with x-request-id (D2), which a fake server or a proxy's own answer lacks, and a route
 * that answers 501 is not exercised.
 */
export function recording(inner: typeof fetch, file: string): typeof fetch {
  return async (input, init) => {
    const res = await inner(input, init);
    if (typeof input === 'string' && new Headers(init?.headers).get('user-agent') === USER_AGENT) {
      const operation = operationOf(init?.method ?? 'GET', input);
      if (operation && res.headers.has('x-request-id') && res.status !== 501) appendFileSync(file, `${operation}\n`);
    }
    return res;
  };
}

/** The operations no worker recorded. */
export function uncalledOperations(dir: string): string[] {
  const called = new Set<string>();
  for (const file of readdirSync(dir)) {
    for (const line of readFileSync(path.join(dir, file), 'utf8').split('\n')) if (line) called.add(line);
  }
  return OPERATIONS.map((op) => op.name).filter((name) => !called.has(name));
}

/**
 * Says how many operations the run called through the SDK. With SDK_ROUTE_COVERAGE=strict
 * (`pnpm test`, the full run) an operation never called fails the run.
 */
export function reportRouteCoverage(dir: string): void {
  const uncalled = uncalledOperations(dir);
  const called = OPERATIONS.length - uncalled.length;
  const never = uncalled.length ? `; never: ${uncalled.join(', ')}` : '';
  process.stdout.write(
    `[harness] SDK route coverage: ${called}/${OPERATIONS.length} operations called through the SDK${never}\n`,
  );
  if (uncalled.length && process.env.SDK_ROUTE_COVERAGE === 'strict') {
    // A teardown's exception is only logged by vitest: the exit code is what fails the run.
    process.stderr.write(`[harness] FAILED: operations never called through the SDK: ${uncalled.join(', ')}\n`);
    process.exitCode = 1;
  }
}
