import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Logger } from 'pino';

/**
 * The switchboard of the devices in this folder: each reaches under a library or Node.js for
 * speed, so each is guarded and switchable (README.md beside this file lists them).
 *
 * A device is on unless `FAST_PATHS` turns it off (`off`: every device; `off:<name>,<name>`:
 * those) or its guard finds that what it reaches no longer looks as it was written against
 * (a version outside its range, a method or field missing): then it stays off, and the
 * process says so once at `warn` (`reportFastPaths`). Off, the service runs on the stock
 * libraries alone, correct in every respect, only slower.
 */

export interface Device {
  /** The name `FAST_PATHS=off:<name>` turns off. */
  name: string;
  /** Why the device cannot run here, or undefined when what it reaches looks as expected. */
  guard(): string | undefined;
  /**
   * False for a reach that keeps a promise rather than buying speed (the service is not correct
   * without it): `FAST_PATHS` leaves it on; only its guard turns it off.
   */
  switchable?: false;
}

interface Entry extends Device {
  state?: { on: boolean; reason?: string; reported?: boolean };
}

const devices = new Map<string, Entry>();
let warnLog: Pick<Logger, 'warn'> | undefined;

/** The setting of `FAST_PATHS`: every device on, every one off, or the named ones off. */
function switchedOff(value = process.env.FAST_PATHS): 'all' | Set<string> {
  const text = (value ?? '').trim();
  if (text === '' || text === 'on') return new Set();
  if (text === 'off') return 'all';
  if (text.startsWith('off:'))
    return new Set(
      text
        .slice(4)
        .split(',')
        .map((n) => n.trim())
        .filter(Boolean),
    );
  throw new Error(`FAST_PATHS must be "on", "off" or "off:<device>,<device>", not "${text}"`);
}

/**
 * Declares a device; answers whether it is on in this process. The guard runs once, the
 * first time the answer is asked for.
 */
export function fastPath(device: Device): () => boolean {
  const entry: Entry = { ...device };
  devices.set(device.name, entry);
  return () => stateOf(entry).on;
}

function stateOf(entry: Entry): NonNullable<Entry['state']> {
  if (!entry.state) entry.state = decide(entry);
  return entry.state;
}

function decide(entry: Entry): NonNullable<Entry['state']> {
  const off = switchedOff();
  if (entry.switchable !== false && (off === 'all' || off.has(entry.name))) return { on: false, reported: true };
  let reason: string | undefined;
  try {
    reason = entry.guard();
  } catch (err) {
    reason = `its guard failed: ${(err as Error).message}`;
  }
  if (reason === undefined) return { on: true };
  const state = { on: false, reason, reported: false };
  if (warnLog) report(entry.name, state, warnLog);
  return state;
}

/**
 * Turns a device off from the moment something it reaches is found changed while the process
 * runs (a field of a connection, known only once one is open). Said once at `warn`.
 */
export function turnOff(name: string, reason: string): void {
  const entry = devices.get(name);
  if (!entry || entry.state?.on === false) return;
  entry.state = { on: false, reason, reported: false };
  if (warnLog) report(name, entry.state, warnLog);
}

function report(name: string, state: NonNullable<Entry['state']>, log: Pick<Logger, 'warn'>): void {
  if (state.reported || !state.reason) return;
  state.reported = true;
  log.warn({ fastPath: name, reason: state.reason }, `fast path ${name} is off: ${state.reason}`);
}

/**
 * Decides every device at a process's start: refuses a `FAST_PATHS` naming no device, and says
 * once at `warn` which device a guard turned off (and later ones, as they are found).
 */
export function reportFastPaths(logger: Pick<Logger, 'warn'>): void {
  const off = switchedOff();
  if (off !== 'all') {
    const unknown = [...off].filter((name) => !devices.has(name));
    if (unknown.length > 0) {
      throw new Error(
        `FAST_PATHS names no device ${unknown.join(', ')}; the devices: ${[...devices.keys()].join(', ')}`,
      );
    }
  }
  warnLog = logger;
  for (const entry of devices.values()) report(entry.name, stateOf(entry), logger);
}

/** Every device and whether it is on (tests, the bench). */
export function fastPathStates(): { name: string; on: boolean; reason?: string }[] {
  return [...devices.values()].map((e) => {
    const { on, reason } = stateOf(e);
    return { name: e.name, on, ...(reason ? { reason } : {}) };
  });
}

const require = createRequire(import.meta.url);

/** The installed version of a package, read from its package.json (found from its entry point). */
export function packageVersion(name: string): string {
  let dir = dirname(require.resolve(name));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === name && pkg.version) return pkg.version;
    } catch {}
    const up = dirname(dir);
    if (up === dir) throw new Error(`no package.json of ${name}`);
    dir = up;
  }
}

/**
 * Why `version` is outside the `[min, below)` range a device was written against, or undefined.
 * Versions compare by their numeric parts (`8.16.3`).
 */
export function outsideRange(what: string, version: string, min: string, below: string): string | undefined {
  const parts = (v: string) =>
    v
      .split(/[.-]/)
      .slice(0, 3)
      .map((p) => Number.parseInt(p, 10) || 0);
  const compare = (a: number[], b: number[]) => a.reduce((c, x, i) => c || x - (b[i] ?? 0), 0);
  const v = parts(version);
  if (compare(v, parts(min)) < 0 || compare(v, parts(below)) >= 0) {
    return `${what} ${version} is outside the versions it was written against (>= ${min}, < ${below})`;
  }
  return undefined;
}

/** The first reason of several checks, or undefined when all pass. */
export function firstProblem(...checks: (() => string | undefined)[]): string | undefined {
  for (const check of checks) {
    const problem = check();
    if (problem) return problem;
  }
  return undefined;
}
