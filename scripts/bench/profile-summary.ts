/**
 * `pnpm bench:profile [file.cpuprofile ...]`: where a profiled process spent its time (by
 * default the processes of the newest profiled run under .tmp/profiles/). Prints self time by function and by
 * package, then by stage of serving a request (start-up apart), so a change to the request
 * pipeline can be judged by what it removed.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { PROFILE_DIR } from './lib';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The main thread's profile of each process of the newest run (the busiest file of its folder). */
function newest(): string[] {
  const dirs = readdirSync(PROFILE_DIR).map((d) => path.join(PROFILE_DIR, d));
  const last = Math.max(...dirs.map((d) => statSync(d).mtimeMs));
  return dirs
    .filter((d) => statSync(d).mtimeMs > last - 120_000)
    .map((d) => {
      const files = readdirSync(d).map((f) => path.join(d, f));
      files.sort((a, b) => statSync(b).size - statSync(a).size);
      return files[0]!;
    });
}

/** The package (or the project folder) a script belongs to. */
function owner(url: string): string {
  if (!url) return '(native/idle)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  if (url.startsWith('node:')) return url;
  const project = url.indexOf('/server/src/');
  if (project >= 0) return `server/src/${url.slice(project + 12).split('/')[0]}`;
  return url
    .replace(/^file:\/\//, '')
    .split('/')
    .slice(-2)
    .join('/');
}

/** A sampling heap profile (heap-sampler.ts): a tree of call frames, each with the bytes it allocated itself. */
interface HeapNode {
  id: number;
  callFrame: ProfileNode['callFrame'];
  selfSize: number;
  children: HeapNode[];
}

/** A profile's nodes, and what each spent itself: busy µs of a CPU profile, bytes of a heap profile. */
function selfCosts(file: string): {
  profile: Profile;
  byId: Map<number, ProfileNode>;
  self: Map<number, number>;
  unit: 'time' | 'bytes';
} {
  const read = JSON.parse(readFileSync(file, 'utf8')) as Profile | { head: HeapNode };
  const self = new Map<number, number>();
  if ('head' in read) {
    const nodes: ProfileNode[] = [];
    const walk = (n: HeapNode) => {
      nodes.push({ id: n.id, callFrame: n.callFrame, children: n.children.map((c) => c.id) });
      if (n.selfSize > 0) self.set(n.id, n.selfSize);
      n.children.forEach(walk);
    };
    walk(read.head);
    return {
      profile: { nodes, samples: [], timeDeltas: [] },
      byId: new Map(nodes.map((n) => [n.id, n])),
      self,
      unit: 'bytes',
    };
  }
  for (const [i, id] of read.samples.entries()) self.set(id, (self.get(id) ?? 0) + (read.timeDeltas[i] ?? 0));
  const idle = new Set(['(idle)', '(program)']);
  const byId = new Map(read.nodes.map((n) => [n.id, n]));
  for (const [id] of self) if (idle.has(byId.get(id)!.callFrame.functionName)) self.delete(id);
  return { profile: read, byId, self, unit: 'time' };
}

function summarize(file: string, top = 30): void {
  const { profile, byId, self, unit } = selfCosts(file);
  // Busy time (or bytes allocated) only: the share of each function in what the process did.
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const byFunction = new Map<string, number>();
  const byOwner = new Map<string, number>();
  for (const [id, us] of self) {
    const f = byId.get(id)!.callFrame;
    const key = `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*?\/(server|contract|scripts)\//, '$1/')}:${f.lineNumber + 1}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + us);
    const o = owner(f.url) === '(native/idle)' ? f.functionName || '(native)' : owner(f.url);
    byOwner.set(o, (byOwner.get(o) ?? 0) + us);
  }
  const pct = (us: number) => `${((100 * us) / total).toFixed(1).padStart(5)}%`;
  const what = unit === 'time' ? 'time' : 'allocation';
  const amount =
    unit === 'time' ? `${(total / 1e6).toFixed(1)} s busy` : `${(total / 2 ** 20).toFixed(0)} MiB allocated`;
  process.stdout.write(`# ${path.basename(file)}: ${amount}\n\n## self ${what} by package or folder\n`);
  for (const [k, us] of [...byOwner].sort((a, b) => b[1] - a[1]).slice(0, top))
    process.stdout.write(`${pct(us)}  ${k}\n`);
  process.stdout.write(`\n## self ${what} by function\n`);
  for (const [k, us] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top))
    process.stdout.write(`${pct(us)}  ${k}\n`);
  printStages(profile, byId, self, unit);
}

/**
 * The stages of serving a request, each named by what its frames look like (their function
 * or file). A sample counts for the stage of the frame nearest its leaf that names one, so
 * the pg driver called from a route counts as the database and a zod parse inside pricing as
 * validation; a sample with a start-up frame anywhere in its stack (loading modules, building
 * the app) counts as start-up, which the shares leave out.
 */
const STAGES: [stage: string, frame: RegExp][] = [
  ['socket writes (the kernel, and waiting for a core inside it)', /^(writeUtf8String|writev|writeBuffer) /],
  ['garbage collection', /^\(garbage collector\) /],
  ['reading the JSON body', /^(parseStrict|readPlainJson) |^parse $|body-parser\/|raw-body\//],
  ['request validation (contract schemas)', /runtime\/compiled-schema\.ts|^validateRequest |\/zod\//],
  [
    'database (pg driver, Kysely, db/)',
    /\/(pg|pg-protocol|pg-pool|kysely)\/|server\/src\/(db|runtime\/(pg-wire|kysely-raw))/,
  ],
  ['domain rules and money', /server\/src\/(domain|lib\/money)/],
  [
    'writing the answer (JSON, headers)',
    /runtime\/lean-json\.ts|^(writeHead|_storeHeader) | node:_http_(outgoing|server)$/,
  ],
  [
    'auth, versions, idempotency, limits (http/)',
    /server\/src\/http\/(auth|versions|idempotency|rate-limit|origin)\.ts/,
  ],
  ['middleware of the app (request id, access log, sequence)', /server\/src\/(http|app\.ts|lib\/request)/],
  ['Express and ts-rest routing', /\/(express|@ts-rest)\//],
  [
    'HTTP parsing, sockets and streams of Node',
    / node:(_http_|net$|internal\/streams|internal\/stream_base)|^parserOn/,
  ],
  ['the code of a baseline server (scripts/bench/)', /scripts\/bench\//],
  ['async context and timers', / node:(async_hooks|internal\/async_|internal\/timers|internal\/process\/task_queues)/],
  ['graphile-worker (the job queue)', /\/graphile-worker\//],
  ['crypto (signatures, hashes)', / node:internal\/crypto\//],
];
const START_UP =
  /^(compileSourceTextModule|wrapSafe|asyncRunEntryPointWithESMLoader|createApp|evaluate) |node:internal\/modules\/|\/(tsx|esbuild)\//;

function printStages(
  profile: Profile,
  byId: Map<number, ProfileNode>,
  self: Map<number, number>,
  unit: 'time' | 'bytes',
): void {
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const frame = (id: number) => {
    const f = byId.get(id)!.callFrame;
    return `${f.functionName || '(anonymous)'} ${f.url}`;
  };
  const stages = new Map<string, number>();
  for (const [id, us] of self) {
    const stack: string[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) stack.push(frame(at));
    const stage = stack.some((f) => START_UP.test(f))
      ? 'start-up'
      : (stack.map((f) => STAGES.find(([, re]) => re.test(f))?.[0]).find((s) => s !== undefined) ?? 'other');
    stages.set(stage, (stages.get(stage) ?? 0) + us);
  }
  const startUp = stages.get('start-up') ?? 0;
  stages.delete('start-up');
  const serving = [...stages.values()].reduce((a, b) => a + b, 0);
  const amount = (n: number) => (unit === 'time' ? `${(n / 1e6).toFixed(1)} s` : `${(n / 2 ** 20).toFixed(0)} MiB`);
  process.stdout.write(`\n## by stage, start-up apart (${amount(serving)} serving, ${amount(startUp)} start-up)\n`);
  for (const [k, us] of [...stages].sort((a, b) => b[1] - a[1]))
    process.stdout.write(`${((100 * us) / serving).toFixed(1).padStart(5)}%  ${k}\n`);
}

const files = process.argv.slice(2);
for (const f of files.length > 0 ? files : newest()) summarize(f);
