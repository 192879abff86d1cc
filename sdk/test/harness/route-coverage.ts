import { appendFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { threadId } from 'node:worker_threads';
import { API_VERSIONS, type ApiVersion, contractFor, isVersionedRoute } from '@protection-service/contract';
import { USER_AGENT } from '../../src/client';

/**
 * Which contract operations the test run called through the SDK against the service (the
 * architecture's check 3), per dated version (D44). Each test worker records the SDK's
 * requests (recognised by its user-agent) that the service answered, as `group.operation` or
 * `group.operation@version` lines in a directory shared by the run; the run's teardown reads
 * them all.
 */

interface Operation {
  name: string;
  method: string;
  pattern: RegExp;
  /**
   * The dated versions that serve it, for a versioned (token) route (D44): each must see it
   * called; null for an unversioned route, which counts once.
   */
  versions: readonly ApiVersion[] | null;
}

/**
 * Every operation of every dated version (D44), in contract order (literal paths before
 * parameters), then the routes of older versions only (`PUT /v2/settings`, 2025-01-01).
 */
export const OPERATIONS: readonly Operation[] = (() => {
  const byName = new Map<string, Operation>();
  for (const version of API_VERSIONS) {
    for (const [name, { route }] of contractFor(version).routes) {
      const known = byName.get(name);
      if (known) {
        if (known.versions) known.versions = [...known.versions, version];
        continue;
      }
      byName.set(name, {
        name,
        method: route.method,
        pattern: new RegExp(`^${route.path.replace(/:\w+/g, '[^/]+')}$`),
        versions: isVersionedRoute(route) ? [version] : null,
      });
    }
  }
  return [...byName.values()];
})();

/**
 * What a full run must call through the SDK: `group.operation` for an unversioned operation,
 * `group.operation@version` for a versioned one on each version that serves it (D44).
 */
export const REQUIRED_CALLS: readonly string[] = OPERATIONS.flatMap((op) =>
  op.versions ? op.versions.map((version) => `${op.name}@${version}`) : [op.name],
);

function operationFor(method: string, url: string): Operation | undefined {
  const { pathname } = new URL(url);
  return OPERATIONS.find((op) => op.method === method && op.pattern.test(pathname));
}

/** `claims.file` for `POST http://host/v1/claims/1001`; undefined for a path no route has. */
export function operationOf(method: string, url: string): string | undefined {
  return operationFor(method, url)?.name;
}

/**
 * The line a call records: `claims.file@2025-01-01` for a versioned operation, on the version
 * the request asked for (`Api-Version`) or else the one the answer says served it (D44);
 * `oauth.token` for an unversioned one.
 */
export function callOf(op: Operation, request: Headers, answer: Headers): string {
  if (!op.versions) return op.name;
  const version = request.get('api-version') ?? answer.get('api-version');
  return version ? `${op.name}@${version}` : op.name;
}

const RECORDING = Symbol.for('protection-service.sdk-calls');

/**
 * Wraps this worker's global fetch to record every request the SDK sends: once, however many
 * test files the worker runs (their setup files run again for each).
 */
export function recordSdkCalls(dir: string): void {
  const global = globalThis as { [RECORDING]?: true };
  if (global[RECORDING]) return;
  global[RECORDING] = true;
  mkdirSync(dir, { recursive: true });
  globalThis.fetch = recording(globalThis.fetch, path.join(dir, `${process.pid}-${threadId}.log`));
}

/**
 * `inner`, appending to `file` the call (see callOf) of each SDK request the service
 * answered. The SDK calls fetch(url, init) with plain headers. Only answers of the service
 * count: it stamps each with x-request-id (D2), which a fake server or a proxy's own answer
 * lacks, and a route that answers 501 is not exercised.
 */
export function recording(inner: typeof fetch, file: string): typeof fetch {
  return async (input, init) => {
    const res = await inner(input, init);
    const headers = new Headers(init?.headers);
    if (typeof input === 'string' && headers.get('user-agent') === USER_AGENT) {
      const op = operationFor(init?.method ?? 'GET', input);
      if (op && res.headers.has('x-request-id') && res.status !== 501) {
        appendFileSync(file, `${callOf(op, headers, res.headers)}\n`);
      }
    }
    return res;
  };
}

/** The required calls (REQUIRED_CALLS) no worker recorded, e.g. `settings.replace@2025-01-01`. */
export function uncalledOperations(dir: string): string[] {
  const called = new Set<string>();
  for (const file of readdirSync(dir)) {
    for (const line of readFileSync(path.join(dir, file), 'utf8').split('\n')) if (line) called.add(line);
  }
  return REQUIRED_CALLS.filter((call) => !called.has(call));
}

/**
 * Says how many operations the run called through the SDK, a versioned one counted on each
 * version (D44). With SDK_ROUTE_COVERAGE=strict (`pnpm test`, the full run) an operation
 * never called, or a versioned one never called on some version, fails the run.
 */
export function reportRouteCoverage(dir: string): void {
  const uncalled = uncalledOperations(dir);
  const called = REQUIRED_CALLS.length - uncalled.length;
  const never = uncalled.length ? `; never: ${uncalled.join(', ')}` : '';
  process.stdout.write(
    `[harness] SDK route coverage: ${called}/${REQUIRED_CALLS.length} operations (per version) called through the SDK${never}\n`,
  );
  if (uncalled.length && process.env.SDK_ROUTE_COVERAGE === 'strict') {
    // A teardown's exception is only logged by vitest: the exit code is what fails the run.
    process.stderr.write(`[harness] FAILED: operations never called through the SDK: ${uncalled.join(', ')}\n`);
    process.exitCode = 1;
  }
}
