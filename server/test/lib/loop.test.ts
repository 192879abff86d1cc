import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { startLoop } from '../../src/lib/loop';

/** The one helper of every background loop: one run at a time, a failure said once, stop on drain. */

function recorder() {
  const lines: { level: string; msg: string }[] = [];
  return {
    lines,
    log: {
      warn: (_obj: object, msg: string) => lines.push({ level: 'warn', msg }),
      info: (_obj: object, msg: string) => lines.push({ level: 'info', msg }),
    },
  };
}

describe('startLoop', () => {
  it('runs again and again, never two runs at once, each wait within the jitter', async () => {
    let runs = 0;
    let inFlight = 0;
    let most = 0;
    const starts: number[] = [];
    const loop = startLoop('test loop', { everyMs: 20, jitter: 0.5 }, async () => {
      starts.push(performance.now());
      runs++;
      inFlight++;
      most = Math.max(most, inFlight);
      await sleep(30);
      inFlight--;
    });
    await sleep(400);
    await loop.stop();
    expect(runs).toBeGreaterThanOrEqual(3);
    expect(most).toBe(1);
    // A run takes 30 ms and the wait after it at least 10 ms (20 ms less half of it).
    for (let i = 1; i < starts.length; i++) expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(39);
  });

  it('says a failure once while it lasts, and once that it works again', async () => {
    const { lines, log } = recorder();
    let calls = 0;
    const loop = startLoop('flaky loop', { everyMs: 5, log, runAtStart: true }, () => {
      calls++;
      if (calls <= 5) throw new Error('database out of reach');
    });
    await sleep(200);
    await loop.stop();
    expect(calls).toBeGreaterThan(6);
    expect(lines).toEqual([
      { level: 'warn', msg: 'flaky loop failed; retried every 5 ms, said once' },
      { level: 'info', msg: 'flaky loop works again' },
    ]);
  });

  it('stop waits for the run in progress, tells it to stop, and no run starts after it', async () => {
    let runs = 0;
    let sawStopping = false;
    let ended = false;
    const loop = startLoop('batching loop', { everyMs: 5, runAtStart: true }, async (stopping) => {
      runs++;
      await sleep(50);
      sawStopping = stopping();
      ended = true;
    });
    await sleep(10);
    await loop.stop();
    expect(ended).toBe(true);
    expect(sawStopping).toBe(true);
    const after = runs;
    await sleep(50);
    expect(runs).toBe(after);
  });
});
