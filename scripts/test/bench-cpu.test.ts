import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { processCpu } from '../bench/cpu';

/** Code that burns `ms` of CPU time (whatever else the machine runs), then prints `then`. */
const burn = (ms: number, then: string) =>
  `while (process.cpuUsage().user + process.cpuUsage().system < ${ms * 1000}) {} console.log(${JSON.stringify(then)});`;

/**
 * The benchmark's CPU meters (scripts/bench/cpu.ts) count a process with the processes under
 * it, those still running and those that exited, as PostgreSQL's backends and autovacuum
 * workers come and go during a round.
 */
describe.runIf(existsSync('/proc/self/stat'))('bench CPU meters', () => {
  it('count a process, its exited children and its running ones', async () => {
    // A parent that runs one child to its end, then starts a second that stays alive.
    const parent = spawn(
      process.execPath,
      [
        '-e',
        `const { spawn, spawnSync } = require('node:child_process');
        spawnSync(process.execPath, ['-e', ${JSON.stringify(burn(400, ''))}]);
        console.log('exited');
        spawn(process.execPath, ['-e', ${JSON.stringify(`${burn(400, 'running')} setTimeout(() => {}, 3000);`)}],
          { stdio: ['ignore', 'inherit', 'inherit'] });
        setInterval(() => {}, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      const meter = processCpu(parent.pid);
      const lines = createInterface({ input: parent.stdout! })[Symbol.asyncIterator]();
      const counted: Record<string, number> = {};
      for (const expected of ['exited', 'running']) {
        const { value } = await lines.next();
        expect(value).toBe(expected);
        counted[expected] = meter();
      }
      // The first child's 0.4 s, counted as its parent's once it exited; then the second's too.
      expect(counted.exited).toBeGreaterThanOrEqual(0.4);
      expect(counted.running! - counted.exited!).toBeGreaterThanOrEqual(0.35);
    } finally {
      parent.kill();
      await once(parent, 'exit');
    }
    expect(processCpu(parent.pid)()).toBeNaN();
  });
});
