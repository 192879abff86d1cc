/**
 * The one shape of a background loop (the rate limiter's flush, the caches' feeds, the sweeps,
 * the retention, ...): `run` every `everyMs`, one run at a time (the next wait starts when a run
 * ends), each wait drawn within `jitter` of `everyMs` so that processes started together do not
 * hit the database in step, and its timer never keeping a process alive.
 *
 * A run that throws is said once at `warn` (a loop retried every 200 ms against a database out
 * of reach would otherwise write five lines a second), and once at `info` when it works again.
 * `stop` ends the loop when its process drains: no run starts after it, and it resolves once a
 * run in progress has ended (`run` sees `stopping()` turn true, to end between batches).
 */

/** What a loop says its failures with: a pino logger, or anything shaped like one. */
export interface LoopLog {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

export interface LoopOptions {
  everyMs: number;
  /** Each wait is `everyMs` times a factor drawn in [1 - jitter, 1 + jitter]; 0.1 unless told. */
  jitter?: number;
  /** Where a failing run is said (once); without it, a failure is only retried. */
  log?: LoopLog;
  /** Run once right away, not only after the first wait. */
  runAtStart?: boolean;
}

export interface Loop {
  /** Ends the loop: no run starts after it; resolves when a run in progress has ended. */
  stop(): Promise<void>;
}

export function startLoop(
  name: string,
  { everyMs, jitter = 0.1, log, runAtStart = false }: LoopOptions,
  run: (stopping: () => boolean) => unknown,
): Loop {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  let failing = false;
  const stopping = () => stopped;
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(tick, everyMs * (1 - jitter + 2 * jitter * Math.random()));
    timer.unref();
  };
  const tick = () => {
    running = (async () => run(stopping))()
      .then(
        () => {
          if (failing) log?.info({ loop: name }, `${name} works again`);
          failing = false;
        },
        (err: unknown) => {
          if (!failing) log?.warn({ err, loop: name }, `${name} failed; retried every ${everyMs} ms, said once`);
          failing = true;
        },
      )
      .finally(() => {
        running = undefined;
        schedule();
      });
  };
  if (runAtStart) tick();
  else schedule();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
