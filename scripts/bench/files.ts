/**
 * File uploads (D56), in one run against one server process on the data folder:
 * - upload throughput of 2 MB phone photos (`POST /v1/files`, decoded, re-encoded without
 *   metadata, written), one at a time and 20 at once, against writing the same bytes to disk
 *   (`writeFile` of a new file each time) in the same run;
 * - the server's memory (RSS, read from /proc) while 20 uploads run at once, and while 20
 *   uploads of 11 MB are refused (413): the refusal stops reading at the limit, so it should
 *   hold no more than the accepted uploads do;
 * - the shopper's claim form pages' p50 and p95 (`claim-form.ts`).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { createDb } from '../../server/src/db/database';
import { migrateToLatest } from '../../server/src/db/migrate';
import { benchClaimForm } from './claim-form';
import { benchInstallation } from './install';
import { benchDatabase, percentile, startService, stopProcess } from './lib';

const UPLOADS = Number(process.env.BENCH_UPLOADS ?? 40);
const AT_ONCE = 20;
let resets = 0;

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

/** A phone-like JPEG of about 2 MB: 2,000 x 1,500 pixels of noise over a gradient, with EXIF and GPS. */
async function photo(): Promise<Buffer> {
  const [w, h] = [2000, 1500];
  const raw = Buffer.alloc(w * h * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = ((i % (w * 3)) / 12 + ((i * 2654435761) >>> 27)) & 0xff;
  return sharp(raw, { raw: { width: w, height: h, channels: 3 } })
    .jpeg({ quality: 98 })
    .withExif({ IFD0: { Make: 'Bench' }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '51/1 30/1 0/1' } })
    .toBuffer();
}

function uploadOnce(base: string, token: string, bytes: Buffer): Promise<number> {
  const form = new FormData();
  form.set('purpose', 'claim_evidence');
  form.set('file', new Blob([bytes as Uint8Array<ArrayBuffer>]), 'photo.jpg');
  const started = performance.now();
  return fetch(`${base}/v1/files`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form }).then(
    async (res) => {
      await res.arrayBuffer();
      if (res.status !== 201 && res.status !== 413) throw new Error(`upload answered ${res.status}`);
      return performance.now() - started;
    },
    // A refused upload's connection is closed while the client may still be sending: fetch can
    // report the reset instead of the 413 it was answered.
    (err: unknown) => {
      if (bytes.length <= 10 * 1024 * 1024) throw err;
      resets++;
      return performance.now() - started;
    },
  );
}

/** Runs `n` tasks `atOnce` at a time, sampling `pid`'s RSS every 20 ms; answers the latencies and peak RSS. */
async function run(n: number, atOnce: number, pid: number, task: () => Promise<number>) {
  let peak = rssMb(pid);
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMb(pid));
  }, 20);
  const started = performance.now();
  const latencies: number[] = [];
  let next = 0;
  try {
    await Promise.all(
      Array.from({ length: atOnce }, async () => {
        while (next++ < n) latencies.push(await task());
      }),
    );
  } finally {
    clearInterval(sampler);
  }
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { seconds, perSecond: n / seconds, p50: percentile(latencies, 0.5), p95: percentile(latencies, 0.95), peak };
}

export async function benchFiles(): Promise<void> {
  const database = await benchDatabase();
  const db = createDb(database.url);
  const secret = randomBytes(32);
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'bench-files-'));
  try {
    await migrateToLatest(db);
    const installed = await benchInstallation(db, secret, 'files', ['claim:update', 'order:update']);
    const bytes = await photo();
    const big = Buffer.concat([bytes, randomBytes(11 * 1024 * 1024 - bytes.length)]);
    const { base, child } = await startService(database.url, secret, { BENCH_DATA_DIR: dataDir });
    try {
      const token = installed.tokenFor(base);
      const pid = child.pid!;
      for (let i = 0; i < 3; i++) await uploadOnce(base, token, bytes); // warm-up
      const idle = rssMb(pid);
      let k = 0;
      const disk = await run(UPLOADS, 1, pid, async () => {
        const t = performance.now();
        await writeFile(path.join(dataDir, `baseline-${k++}`), bytes);
        return performance.now() - t;
      });
      const one = await run(UPLOADS, 1, pid, () => uploadOnce(base, token, bytes));
      const many = await run(UPLOADS, AT_ONCE, pid, () => uploadOnce(base, token, bytes));
      const refused = await run(AT_ONCE, AT_ONCE, pid, () => uploadOnce(base, token, big));
      const mb = bytes.length / 1024 / 1024;
      process.stdout.write(`photo ${mb.toFixed(2)} MB; server RSS idle after warm-up ${idle.toFixed(1)} MB\n`);
      const line = (name: string, r: Awaited<ReturnType<typeof run>>) =>
        process.stdout.write(
          `${name.padEnd(34)} ${r.perSecond.toFixed(1).padStart(7)}/s  ${(r.perSecond * mb).toFixed(1).padStart(7)} MB/s  ` +
            `p50 ${r.p50.toFixed(0)} ms  p95 ${r.p95.toFixed(0)} ms  peak RSS ${r.peak.toFixed(0)} MB (+${(r.peak - idle).toFixed(0)})\n`,
        );
      line('writeFile of the same bytes', disk);
      line('POST /v1/files, one at a time', one);
      line(`POST /v1/files, ${AT_ONCE} at once`, many);
      line(`11 MB refused (413), ${AT_ONCE} at once`, refused);
      process.stdout.write(`refused uploads the client saw as a closed connection, not 413: ${resets} of ${AT_ONCE}\n`);
      process.stdout.write(`upload / disk write throughput: ${(one.perSecond / disk.perSecond).toFixed(3)}\n`);
      await benchClaimForm(db, base, token, installed.store.domain, bytes);
    } finally {
      await stopProcess(child);
    }
  } finally {
    await db.destroy();
    await database.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}
