import { describe, expect, it } from 'vitest';
import { fastPath, outsideRange, packageVersion, reportFastPaths, turnOff } from '../../src/runtime/fast-paths';
import { fastPathStates } from '../../src/runtime/index';
import { runScript } from '../harness/processes';

/** A logger that keeps what it was told at `warn`. */
function warnings() {
  const lines: { fastPath: string; reason: string }[] = [];
  return { lines, warn: (fields: { fastPath: string; reason: string }) => lines.push(fields) };
}

const STATES = 'server/test/runtime/fixtures/fast-path-states.ts';

const DEVICES = [
  'answer-first',
  'compiled-schema',
  'half-open',
  'in-flight-answer',
  'one-pass-raw',
  'lean-json',
  'named-statements',
  'held-begin',
  'one-trip',
  'prebuilt-messages',
];

describe('the devices that reach under libraries (server/src/runtime/)', () => {
  it('are all on with the libraries and Node.js installed here, unless FAST_PATHS turns them off', () => {
    const states = fastPathStates();
    expect(states.map((s) => s.name).sort()).toEqual([...DEVICES].sort());
    const switchedOff = process.env.FAST_PATHS === 'off';
    for (const s of states) {
      expect(s.reason, s.name).toBeUndefined();
      expect(s.on, s.name).toBe(!switchedOff || s.name === 'half-open');
    }
  });

  it('FAST_PATHS=off turns off every device but the one that keeps a promise; off:<name> turns off that one', async () => {
    const run = async (value: string) => {
      const { code, stdout, stderr } = await runScript([STATES], { ...process.env, FAST_PATHS: value });
      expect(code, stderr).toBe(0);
      return JSON.parse(stdout) as Record<string, boolean>;
    };
    const off = await run('off');
    expect(Object.entries(off).filter(([, on]) => on)).toEqual([['half-open', true]]);
    const one = await run('off:lean-json,one-trip');
    expect(
      Object.entries(one)
        .filter(([, on]) => !on)
        .map(([name]) => name)
        .sort(),
    ).toEqual(['lean-json', 'one-trip']);
  });

  it('a FAST_PATHS naming no device, or of another form, stops the process at its start', async () => {
    const unknown = await runScript([STATES, '--report'], { ...process.env, FAST_PATHS: 'off:lean-jsn' });
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('FAST_PATHS names no device lean-jsn');
    const malformed = await runScript([STATES, '--report'], { ...process.env, FAST_PATHS: 'fast' });
    expect(malformed.code).not.toBe(0);
    expect(malformed.stderr).toContain('FAST_PATHS must be');
  });

  it('a device whose guard finds its library changed stays off and is reported once at warn', () => {
    let guarded = 0;
    // Not switchable, so that FAST_PATHS (a run with it off) leaves the guard to decide.
    const on = fastPath({
      name: 'probe-changed',
      switchable: false,
      guard: () => {
        guarded++;
        return 'probe 2.0.0 is outside the versions it was written against';
      },
    });
    expect(on()).toBe(false);
    expect(on()).toBe(false);
    expect(guarded).toBe(1);
    const log = warnings();
    reportFastPaths(log);
    reportFastPaths(log);
    expect(log.lines.filter((l) => l.fastPath === 'probe-changed')).toEqual([
      { fastPath: 'probe-changed', reason: 'probe 2.0.0 is outside the versions it was written against' },
    ]);
  });

  it('a guard that throws turns its device off instead of the process', () => {
    const on = fastPath({
      name: 'probe-throws',
      switchable: false,
      guard: () => {
        throw new Error('no such method');
      },
    });
    expect(on()).toBe(false);
  });

  it('a device found changed while the process runs turns off from then on, said once', () => {
    const on = fastPath({ name: 'probe-late', switchable: false, guard: () => undefined });
    const log = warnings();
    reportFastPaths(log);
    expect(on()).toBe(true);
    turnOff('probe-late', 'a connection has no parsedStatements');
    turnOff('probe-late', 'a connection has no parsedStatements');
    expect(on()).toBe(false);
    expect(log.lines.filter((l) => l.fastPath === 'probe-late')).toHaveLength(1);
  });

  it('versions outside a range are named; the installed ones are read from the packages', () => {
    expect(outsideRange('pg', '8.16.3', '8.11.0', '9.0.0')).toBeUndefined();
    expect(outsideRange('pg', '9.0.0', '8.11.0', '9.0.0')).toContain('pg 9.0.0 is outside');
    expect(outsideRange('pg', '8.10.9', '8.11.0', '9.0.0')).toContain('>= 8.11.0');
    expect(outsideRange('zod', '4.0.0-beta.1', '3.22.0', '4.0.0')).toContain('zod 4.0.0-beta.1');
    for (const name of ['pg', 'express', 'kysely', 'zod', '@ts-rest/core']) {
      expect(packageVersion(name), name).toMatch(/^\d+\.\d+\.\d+/);
    }
  });
});
