/**
 * `pnpm bench:profile [file.cpuprofile ...]`: where a profiled process spent its time (by
 * default the processes of the newest profiled run under .tmp/profiles/). Prints self time by function and by
 * package, so a change to the request pipeline can be judged by what it removed.
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

function summarize(file: string, top = 30): void {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  for (const [i, id] of profile.samples.entries()) self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  const idle = new Set(['(idle)', '(program)']);
  for (const [id] of self) if (idle.has(byId.get(id)!.callFrame.functionName)) self.delete(id);
  // Busy time only: the share of each function in what the process did.
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
  process.stdout.write(
    `# ${path.basename(file)}: ${(total / 1e6).toFixed(1)} s busy\n\n## self time by package or folder\n`,
  );
  for (const [k, us] of [...byOwner].sort((a, b) => b[1] - a[1]).slice(0, top))
    process.stdout.write(`${pct(us)}  ${k}\n`);
  process.stdout.write('\n## self time by function\n');
  for (const [k, us] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top))
    process.stdout.write(`${pct(us)}  ${k}\n`);
}

const files = process.argv.slice(2);
for (const f of files.length > 0 ? files : newest()) summarize(f);
