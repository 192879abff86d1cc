import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import type { TFile } from '@protection-service/contract';
import { sql } from 'kysely';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepUnattachedFiles } from '../../src/domain/files/files';
import type { FileStorageConfig } from '../../src/domain/files/storage';
import { openFileStorage } from '../../src/domain/files/storage';
import { type ClaimStore, claimBody, claimStore } from '../harness/claims';
import {
  cameraTags,
  exifOf,
  gpsJpeg,
  gpsPng,
  gpsWebp,
  html,
  largeJpeg,
  pdf,
  pixelBomb,
  sidewaysJpeg,
  svg,
  upload,
} from '../harness/files';
import { bearer, errorOf } from '../harness/fixtures';
import { type S3TestServer, startS3 } from '../harness/s3';
import { startTestServer, type TestServer } from '../harness/server';

/**
 * D56 files, the same tests on both storages: the data folder and a real S3-compatible server
 * (MinIO where a container runtime answers, else s3rver). Photos are stored re-encoded with no
 * EXIF or GPS position, served with their headers through the content route and the
 * capability link; hostile files are refused in the D2 shape with nothing stored; another
 * store's token gets 404; a storage outage answers 503 with Retry-After and files no claim
 * fewer; files attached to nothing for a day are swept with their bytes.
 */
describe.each(['local', 's3'] as const)('files on %s storage (D56)', (backend) => {
  let server: TestServer;
  let s3: S3TestServer | undefined;
  let storage: FileStorageConfig;
  let s: ClaimStore;
  let other: ClaimStore;

  beforeAll(async () => {
    if (backend === 's3') s3 = await startS3(`run-${Date.now()}/`);
    server = await startTestServer(s3 ? { fileStorage: s3.config } : {}, { rateLimits: { token: 1e9 } });
    storage = server.config.fileStorage;
    s = await claimStore(server, `files-${backend}`);
    other = await claimStore(server, `files-other-${backend}`);
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await s3?.close();
  });

  /** Every key in the storage, as its own listing says. */
  const storedKeys = async (): Promise<string[]> => {
    if (storage.kind === 'local') {
      const entries = await readdir(storage.dir, { recursive: true, withFileTypes: true }).catch(() => []);
      return entries
        .filter((e) => e.isFile())
        .map((e) => path.relative(storage.kind === 'local' ? storage.dir : '', path.join(e.parentPath, e.name)));
    }
    const client = new S3Client({
      region: storage.region,
      endpoint: storage.endpoint,
      forcePathStyle: true,
      credentials: storage.credentials,
    });
    const listed = await client.send(new ListObjectsV2Command({ Bucket: storage.bucket, Prefix: storage.prefix }));
    client.destroy();
    return (listed.Contents ?? []).map((o) => o.Key!.slice(storage.kind === 's3' ? storage.prefix.length : 0));
  };
  const fileRows = async () =>
    Number((await sql<{ n: string }>`select count(*) as n from files`.execute(server.db)).rows[0]!.n);

  const uploaded = async (res: Response): Promise<TFile> => {
    expect(res.status, await res.clone().text()).toBe(201);
    return ((await res.json()) as { data: TFile }).data;
  };
  const content = (id: string, token = s.token) =>
    server.request(`/v1/files/${id}/content`, { headers: bearer(token) });

  it('stores a phone photo re-encoded, without EXIF or GPS, and serves it through both ways', async () => {
    const original = await gpsJpeg();
    expect((await exifOf(original))?.latitude).toBeCloseTo(51.507, 2);
    const file = await uploaded(await upload(server, s.token, original, 'IMG_0001.HEIC', 'image/heic'));
    expect(file).toMatchObject({ purpose: 'claim_evidence', type: 'image/jpeg', width: 64, height: 48 });
    expect(file.id).toMatch(/^file_[a-z2-7]{24}$/);
    expect(file.url).toMatch(new RegExp(`^${server.baseUrl}/files/${file.id}/[0-9a-f]{64}[A-Za-z0-9_-]{22}$`));
    const res = await content(file.id);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/jpeg');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('cache-control')).toBe('private, max-age=3600');
    expect(res.headers.get('content-security-policy')).toBe("default-src 'none'");
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.length).toBe(file.size);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(file.sha256);
    expect(await exifOf(bytes)).toBeUndefined();
    expect(await cameraTags(bytes)).toEqual([]);
    expect(bytes.includes('Acme Phone')).toBe(false);
    expect(bytes.includes('SN-12345')).toBe(false);
    // The capability link, with no token at all.
    const linked = await fetch(file.url);
    expect(linked.status).toBe(200);
    expect(linked.headers.get('content-security-policy')).toBe("default-src 'none'");
    expect(Buffer.from(await linked.arrayBuffer()).equals(bytes)).toBe(true);
    expect(await storedKeys()).toContain(`${s.owner.store.id}/${file.id}`);
  });

  it('stores a HEIC photo as an upright JPEG without its EXIF, camera or serial', async () => {
    // Encoded from a 64 x 48 JPEG (red left half, blue right half, EXIF with a GPS position, a
    // camera and its serial) by libheif's heif-enc with x265; it carries the EXIF as its Exif item.
    const original = await readFile(path.join(import.meta.dirname, 'fixtures/photo-gps.heic'));
    expect(original.subarray(4, 12).toString('latin1')).toBe('ftypheic');
    expect(original.includes('Acme Phone')).toBe(true);
    expect(original.includes('SN-12345')).toBe(true);
    const file = await uploaded(await upload(server, s.token, original, 'IMG_0002.HEIC', 'image/heic'));
    expect(file).toMatchObject({ type: 'image/jpeg', width: 64, height: 48 });
    const bytes = Buffer.from(await (await content(file.id)).arrayBuffer());
    expect(bytes.length).toBe(file.size);
    expect(await exifOf(bytes)).toBeUndefined();
    expect(await cameraTags(bytes)).toEqual([]);
    expect(bytes.includes('Acme Phone')).toBe(false);
    expect(bytes.includes('SN-12345')).toBe(false);
    // The pixels as taken: red on the left, blue on the right (neither turned nor mirrored).
    const { data, info } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true });
    const at = (x: number, y: number) => [...data.subarray((y * info.width + x) * info.channels).subarray(0, 3)];
    expect(at(4, 24)[0]).toBeGreaterThan(150);
    expect(at(60, 24)[2]).toBeGreaterThan(150);
  });

  it('turns a sideways photo upright and keeps PNG and WebP as they are, without metadata', async () => {
    const upright = await uploaded(await upload(server, s.token, await sidewaysJpeg()));
    expect([upright.width, upright.height]).toEqual([20, 60]);
    for (const [make, type] of [
      [gpsPng, 'image/png'],
      [gpsWebp, 'image/webp'],
    ] as const) {
      const original = await make();
      expect(await cameraTags(original)).toContain('exif');
      const file = await uploaded(await upload(server, s.token, original, 'x.jpg', 'image/jpeg'));
      expect(file.type).toBe(type);
      const bytes = Buffer.from(await (await content(file.id)).arrayBuffer());
      expect(await cameraTags(bytes)).toEqual([]);
      expect(bytes.includes('Acme Phone')).toBe(false);
    }
  });

  it('stores a PDF as sent and serves it as an attachment', async () => {
    const file = await uploaded(await upload(server, s.token, pdf(), 'receipt.png', 'image/png'));
    expect(file).toMatchObject({ type: 'application/pdf', width: null, height: null, size: pdf().length });
    const res = await fetch(file.url);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${file.id}.pdf"`);
  });

  it('refuses hostile files in the D2 shape and stores nothing', async () => {
    const rows = await fileRows();
    const keys = await storedKeys();
    const truncated = (await gpsJpeg(400, 300)).subarray(0, 600);
    const cases: [string, Buffer, string, number][] = [
      ['an SVG', svg(), 'photo.svg', 415],
      ['HTML named .png', html(), 'photo.png', 415],
      ['a pixel bomb', await pixelBomb(), 'bomb.png', 422],
      ['a truncated JPEG', truncated, 'cut.jpg', 422],
      ['a PDF without its end', Buffer.from('%PDF-1.7\n1 0 obj'), 'cut.pdf', 422],
      ['11 MB', await largeJpeg(11 * 1024 * 1024), 'big.jpg', 413],
    ];
    for (const [what, bytes, name, status] of cases) {
      const res = await upload(server, s.token, bytes, name, 'image/jpeg');
      expect(res.status, what).toBe(status);
      const body = await errorOf(res);
      expect(Object.keys(body).sort(), what).toEqual(['error', 'message', 'statusCode']);
      expect(body.statusCode).toBe(status);
    }
    expect(await fileRows()).toBe(rows);
    expect(await storedKeys()).toEqual(keys);
  }, 60_000);

  it('refuses what is not an upload: no token, a read-only token, no file, no purpose, JSON', async () => {
    const photo = await gpsJpeg();
    const anonymous = new FormData();
    anonymous.set('purpose', 'claim_evidence');
    anonymous.set('file', new Blob([photo]), 'a.jpg');
    expect((await server.request('/v1/files', { method: 'POST', body: anonymous })).status).toBe(401);
    const reader = await claimStore(server, `files-reader-${backend}`, ['claim:read']);
    expect((await upload(server, reader.token, photo)).status).toBe(403);
    expect((await upload(server, s.token, photo, 'a.jpg', 'image/jpeg', null)).status).toBe(400);
    expect((await upload(server, s.token, photo, 'a.jpg', 'image/jpeg', 'avatar')).status).toBe(400);
    const noFile = new FormData();
    noFile.set('purpose', 'claim_evidence');
    expect((await server.request('/v1/files', { method: 'POST', headers: bearer(s.token), body: noFile })).status).toBe(
      400,
    );
    const json = await server.request('/v1/files', {
      method: 'POST',
      headers: bearer(s.token),
      json: { purpose: 'x' },
    });
    expect(json.status).toBe(415);
  });

  it("answers another store's token 404, as for a file that does not exist", async () => {
    const file = await uploaded(await upload(server, s.token, await gpsJpeg()));
    const foreign = await content(file.id, other.token);
    const missing = await content(`${file.id.slice(0, -1)}a`, other.token);
    expect(foreign.status).toBe(404);
    expect(await foreign.json()).toEqual(await missing.json());
    // A link whose MAC is not the service's opens nothing.
    const forged = file.url.replace(/.{4}$/, 'AAAA');
    expect((await fetch(forged)).status).toBe(404);
  });

  it('answers 503 with Retry-After while the storage is out of reach, and files claims without photos', async () => {
    const kept = await uploaded(await upload(server, s.token, await gpsJpeg()));
    const restore = await outage();
    try {
      const res = await upload(server, s.token, await gpsJpeg());
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('2');
      expect((await errorOf(res)).statusCode).toBe(503);
      const read = await content(kept.id);
      expect(read.status).toBe(503);
      expect(read.headers.get('retry-after')).toBe('2');
      await s.putOrder(`outage-${backend}`, { lineItems: [{ sourceItemId: 'li', quantity: 1 }] });
      const filed = await s.file(`outage-${backend}`, claimBody());
      expect(filed.status).toBe(200);
    } finally {
      await restore();
    }
    expect((await upload(server, s.token, await gpsJpeg())).status).toBe(201);
    expect((await content(kept.id)).status).toBe(200);
  }, 60_000);

  /** The storage out of reach: the S3 server stopped, or the data folder no folder at all. */
  async function outage(): Promise<() => Promise<void>> {
    if (s3) {
      await s3.stop();
      return () => s3!.start();
    }
    const dir = (storage as { dir: string }).dir;
    await mkdir(dir, { recursive: true });
    await rename(dir, `${dir}.away`);
    await writeFile(dir, 'not a folder');
    return async () => {
      await rm(dir);
      await rename(`${dir}.away`, dir);
    };
  }

  it('deletes files attached to nothing for 24 hours, with their bytes', async () => {
    const old = await uploaded(await upload(server, s.token, await gpsJpeg()));
    const fresh = await uploaded(await upload(server, s.token, await gpsJpeg()));
    await sql`update files set created_at = now() - interval '25 hours' where id = ${old.id}`.execute(server.db);
    const store = openFileStorage(storage);
    try {
      expect(await sweepUnattachedFiles(server.db, store)).toBeGreaterThanOrEqual(1);
    } finally {
      store.close();
    }
    expect((await content(old.id)).status).toBe(404);
    expect((await fetch(old.url)).status).toBe(404);
    expect(await storedKeys()).not.toContain(`${s.owner.store.id}/${old.id}`);
    expect((await content(fresh.id)).status).toBe(200);
  });

  it('attaches a file to the claim that names it, which then keeps it; no other claim or store may name it', async () => {
    const photo = await uploaded(await upload(server, s.token, await gpsJpeg()));
    const order = `attach-${backend}`;
    await s.putOrder(order, { lineItems: [{ sourceItemId: 'li', quantity: 3 }] });
    const named = (url: string) =>
      claimBody({
        fulfillmentIssues: [{ issues: [{ issueType: 'DAMAGED', quantity: 1, sourceItemId: 'li', images: [url] }] }],
      });
    const claimId = await s.fileId(order, named(photo.url));
    const row = await server.db
      .selectFrom('files')
      .select(['claimId', 'attachedAt'])
      .where('id', '=', photo.id)
      .executeTakeFirstOrThrow();
    expect(row.claimId).toBe(claimId);
    expect(row.attachedAt).not.toBeNull();
    // Another claim naming it, another store's claim naming it: 422 naming the item, nothing filed.
    const again = await s.file(order, named(photo.url));
    expect(again.status).toBe(422);
    expect((await errorOf(again)).message).toBe(
      'body.fulfillmentIssues.0.issues.0.images.0: names a file already attached to another claim',
    );
    await other.putOrder(order, { lineItems: [{ sourceItemId: 'li', quantity: 3 }] });
    const foreign = await other.file(order, named(photo.url));
    expect(foreign.status).toBe(422);
    expect((await errorOf(foreign)).message).toBe(
      'body.fulfillmentIssues.0.issues.0.images.0: names no file of this store',
    );
    // A message on the same claim may show a new file, and the file it holds already.
    const later = await uploaded(await upload(server, s.token, await gpsJpeg()));
    const message = await s.post(`/v1/claims/${claimId}/messages`, {
      message: 'Another angle',
      senderType: 'customer',
      medias: [later.url, photo.url],
    });
    expect(message.status).toBe(200);
    // Attached files outlive the sweep of unattached ones.
    await sql`update files set created_at = now() - interval '25 hours' where id in (${photo.id}, ${later.id})`.execute(
      server.db,
    );
    const store = openFileStorage(storage);
    try {
      await sweepUnattachedFiles(server.db, store);
    } finally {
      store.close();
    }
    expect((await content(photo.id)).status).toBe(200);
    expect((await content(later.id)).status).toBe(200);
  });

  it('of two claims racing to attach one new file exactly one files, the other 422 naming the item, nothing half-written', async () => {
    const named = (url: string) =>
      claimBody({
        fulfillmentIssues: [
          {
            issues: [
              { issueType: 'DAMAGED', quantity: 1, sourceItemId: 'li', images: ['https://elsewhere.example/a.png'] },
              { issueType: 'DAMAGED', quantity: 1, sourceItemId: 'li', images: [url] },
            ],
          },
        ],
      });
    const claimsOn = (order: string) =>
      server.db
        .selectFrom('claims')
        .select('id')
        .where('storeId', '=', s.owner.store.id)
        .where('sourceOrderId', '=', order)
        .execute();
    // Several rounds, each on two orders of its own: only the file is shared, so only its lock orders them.
    for (let round = 0; round < 4; round++) {
      const photo = await uploaded(await upload(server, s.token, await gpsJpeg()));
      const orders = [`race-${backend}-${round}-a`, `race-${backend}-${round}-b`];
      for (const order of orders) await s.putOrder(order, { lineItems: [{ sourceItemId: 'li', quantity: 3 }] });
      const answers = await Promise.all(orders.map((order) => s.file(order, named(photo.url))));
      expect(answers.map((a) => a.status).sort()).toEqual([200, 422]);
      const loser = answers.findIndex((a) => a.status === 422);
      expect((await errorOf(answers[loser]!)).message).toBe(
        'body.fulfillmentIssues.0.issues.1.images.0: names a file already attached to another claim',
      );
      const winner = answers[1 - loser]!.headers.get('location')!.replace('/v1/claims/', '');
      // The loser wrote nothing: no claim, no item, no event; the file is the winner's alone.
      expect(await claimsOn(orders[loser]!)).toEqual([]);
      expect((await claimsOn(orders[1 - loser]!)).map((c) => c.id)).toEqual([winner]);
      const row = await server.db
        .selectFrom('files')
        .select('claimId')
        .where('id', '=', photo.id)
        .executeTakeFirstOrThrow();
      expect(row.claimId).toBe(winner);
      const events = await sql<{ n: string }>`
        select count(*) as n from webhook_events where topic = 'claim/created' and body->>'sourceOrderId' = ${orders[loser]!}
      `.execute(server.db);
      expect(Number(events.rows[0]!.n)).toBe(0);
    }
  });
});
