/**
 * Where a figure's CPU went, process by process: each meter reads the CPU seconds a process
 * and those under it used so far, from /proc (Linux). On a 2-core machine where
 * service, database and load generator share the cores, requests/second alone does not say
 * which of them a target made busy; CPU per request does. Where /proc cannot be read (another
 * system, a database on another machine) a meter reads nothing and prints nothing.
 */
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';

/** Linux reports CPU time in ticks of USER_HZ, 100 a second on every architecture it runs on. */
const TICK_S = 0.01;

/** CPU seconds used so far, by one process or a group of them; NaN when unreadable. */
export type CpuMeter = () => number;

interface ProcStat {
  ppid: number;
  seconds: number;
  /** The CPU of its children that exited and were waited for. */
  reapedSeconds: number;
}

function procStat(pid: number | string): ProcStat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After "pid (comm) ": state, ppid, ...; utime and stime are the 14th and 15th fields,
    // cutime and cstime (children waited for) the 16th and 17th.
    const fields = text
      .slice(text.lastIndexOf(')') + 2)
      .split(' ')
      .map(Number);
    return {
      ppid: fields[1]!,
      seconds: (fields[11]! + fields[12]!) * TICK_S,
      reapedSeconds: (fields[13]! + fields[14]!) * TICK_S,
    };
  } catch {
    return undefined;
  }
}

/**
 * The CPU of process `pid` and of every process under it (the worker's supervised child,
 * PostgreSQL's backends), live or exited: a process counts its children's time once it has
 * waited for them. NaN when the process cannot be read.
 */
export function processCpu(pid: number | undefined): CpuMeter {
  return () => {
    const stats = new Map<number, ProcStat>();
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const stat = procStat(entry);
      if (stat) stats.set(Number(entry), stat);
    }
    const root = pid === undefined ? undefined : stats.get(pid);
    if (pid === undefined || !root) return Number.NaN;
    let seconds = root.reapedSeconds;
    const tree = new Set<number>([pid]);
    // /proc lists processes by pid, which mostly but not always follows creation: repeat until stable.
    for (let grew = true; grew; ) {
      grew = false;
      for (const [child, stat] of stats) {
        if (tree.has(child) || !tree.has(stat.ppid)) continue;
        tree.add(child);
        seconds += stat.reapedSeconds;
        grew = true;
      }
    }
    for (const member of tree) seconds += stats.get(member)!.seconds;
    return seconds;
  };
}

/** The CPU of this process (the load generator, the receiver). */
export const ownCpu: CpuMeter = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};

/** The CPU of the PostgreSQL server behind `url`, its backends and workers included, when it runs on this machine. */
export async function postgresCpu(url: string): Promise<CpuMeter> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const backend = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
  // Read while the backend lives: it exits with the connection.
  const postmaster = procStat(backend)?.ppid;
  await client.end();
  return processCpu(postmaster);
}

export type CpuMeters = Record<string, CpuMeter>;

/** What each meter reads now. */
export function readCpu(meters: CpuMeters): Record<string, number> {
  return Object.fromEntries(Object.entries(meters).map(([name, meter]) => [name, meter()]));
}

/** Adds to `total` the CPU seconds each meter counted since `before`. */
export function addCpuSince(total: Record<string, number>, before: Record<string, number>, meters: CpuMeters): void {
  for (const [name, seconds] of Object.entries(readCpu(meters))) {
    total[name] = (total[name] ?? 0) + seconds - (before[name] ?? Number.NaN);
  }
}

/**
 * CPU per request, in microseconds, of each meter that counted at least 20 µs a request (the
 * processes a target did not use count only their timers), e.g. "service 610 · postgres 450".
 */
export function cpuPerRequest(seconds: Record<string, number>, requests: number): string {
  return Object.entries(seconds)
    .map(([name, s]) => [name, (s * 1e6) / requests] as const)
    .filter(([, us]) => Number.isFinite(us) && us >= 20)
    .map(([name, us]) => `${name} ${us.toFixed(0)}`)
    .join(' · ');
}
