/**
 * `BENCH_PROFILE=heap pnpm bench …` loads this into every process the benchmark starts: V8's
 * sampling heap profiler, counting every allocation, the ones the collector has freed since
 * included, so the profile is what the process allocated (what its garbage collection costs),
 * not what it holds. Written as `<pid>.heapprofile` into `HEAP_PROFILE_DIR` when the process
 * exits; `pnpm bench:profile` prints it. What a request allocates does not depend on how
 * busy the machine is, unlike its time.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import path from 'node:path';

const dir = process.env.HEAP_PROFILE_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  session.post('HeapProfiler.enable');
  session.post('HeapProfiler.startSampling', {
    samplingInterval: 16_384,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  // The main thread's session answers at once, so the profile is written before the process ends.
  process.once('exit', () => {
    session.post('HeapProfiler.stopSampling', (err, result) => {
      if (err) return;
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, `${process.pid}.heapprofile`), JSON.stringify(result.profile));
    });
  });
}
