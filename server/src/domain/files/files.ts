import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import type { TFile, TFileType } from '@protection-service/contract';
import { sql } from 'kysely';
import type { Db } from '../../db/database';
import { queueClaimRisk } from '../../db/risk-queue';
import { transact } from '../../db/transact';
import { type CapabilityLinks, capabilityLinks, linkIdOf, linkToken, newLinkId } from '../../lib/capability-links';
import { sniffType, UNSUPPORTED_TYPE } from '../../lib/file-types';
import { newId } from '../../lib/ids';
import { refuse } from '../../lib/refusal';
import { type StoredForm, storedForm } from './decode';
import { centreHash, perceptualHashes } from './perceptual-hash';
import { writeAndMatch } from './photo-matches';
import { type FileStorage, StorageUnavailable, StoredFileMissing, storageRefusal } from './storage';

/**
 * Files (D56): a store's uploaded photos and receipts. The row says what the file is and
 * whose; the bytes are in the file storage; the file's `url` is a capability link built as
 * D41's (`<PUBLIC_BASE_URL>/files/<id>/<token>`), the database holding only its random half.
 */

/** What builds and checks file links: the derived key and the public base URL. */
export type FileLinks = CapabilityLinks;

export function fileLinks(secretKey: Buffer, publicBaseUrl: string): FileLinks {
  return capabilityLinks(secretKey, 'file-link', publicBaseUrl);
}

export function fileUrl(links: FileLinks, fileId: string, linkId: string): string {
  return `${links.baseUrl}/files/${fileId}/${linkToken(links, linkId)}`;
}

/** A file link's path and its parts: `/files/<id>/<token>`. */
export const FILE_LINK = /^\/files\/(file_[a-z2-7]{24})\/([0-9a-f]{64}[A-Za-z0-9_-]{22})$/;

interface FileRow {
  id: string;
  purpose: 'claim_evidence';
  type: TFileType;
  size: number;
  sha256: string;
  width: number | null;
  height: number | null;
  linkId: string;
  createdAt: Date;
}

function fileRecord(links: FileLinks, row: FileRow): TFile {
  return {
    id: row.id,
    purpose: row.purpose,
    type: row.type,
    size: row.size,
    sha256: row.sha256,
    width: row.width,
    height: row.height,
    url: fileUrl(links, row.id, row.linkId),
    createdAt: row.createdAt.toISOString(),
  };
}

/**
 * D56: an upload within the byte limit, known by its bytes, decoded and made into what is
 * stored, written to the storage, then recorded. Bytes written whose row could not be are
 * removed again (best effort: an unrecorded key is never served).
 */
export async function uploadFile(
  db: Db,
  storage: FileStorage,
  links: FileLinks,
  storeId: string,
  upload: { bytes: Buffer; purpose: 'claim_evidence' },
): Promise<TFile> {
  return storePrepared(db, storage, links, storeId, upload.purpose, await prepareUpload(upload.bytes));
}

/**
 * The first half of an upload: the bytes known by their type (415 otherwise) and made into
 * what is stored (422 when they do not decode). Nothing is written, so a form carrying
 * several files checks them all before it stores any (D56's claim form).
 */
export async function prepareUpload(bytes: Buffer): Promise<StoredForm> {
  const kind = sniffType(bytes);
  if (!kind) throw refuse.unsupportedType(UNSUPPORTED_TYPE);
  return storedForm(kind, bytes);
}

/** The second half of an upload: the prepared bytes written to the storage, then recorded. */
export async function storePrepared(
  db: Db,
  storage: FileStorage,
  links: FileLinks,
  storeId: string,
  purpose: 'claim_evidence',
  stored: StoredForm,
): Promise<TFile> {
  // D57: a photo's perceptual hashes (whole and centre), from the stored (upright) bytes, for the reuse search.
  const hashes = stored.width === null ? null : await perceptualHashes(stored.bytes);
  const id = newId('file');
  const storageKey = `${storeId}/${id}`;
  try {
    await storage.put(storageKey, stored.bytes, stored.type);
  } catch (err) {
    if (err instanceof StorageUnavailable) throw storageRefusal();
    throw err;
  }
  const row = {
    id,
    storeId,
    purpose,
    type: stored.type,
    size: stored.bytes.length,
    sha256: createHash('sha256').update(stored.bytes).digest('hex'),
    width: stored.width,
    height: stored.height,
    linkId: newLinkId(),
    storageKey,
  };
  try {
    const insert = async (trx: Db) =>
      (
        await trx
          .insertInto('files')
          .values({
            ...row,
            perceptualHash: hashes?.full.toString() ?? null,
            perceptualHashCentre: hashes?.centre.toString() ?? null,
          })
          .returning('createdAt')
          .executeTakeFirstOrThrow()
      ).createdAt;
    // D57: a photo is matched with the store's others as it is recorded, once (photo-matches.ts).
    const createdAt = hashes ? await writeAndMatch(db, storeId, id, insert) : await insert(db);
    return fileRecord(links, { ...row, createdAt });
  } catch (err) {
    await storage.remove(storageKey).catch(() => {});
    throw err;
  }
}

/** A stored file's bytes and how to serve them. */
export interface FileContent {
  type: TFileType;
  size: number;
  id: string;
  body: Readable;
}

async function contentOf(
  storage: FileStorage,
  row: { id: string; type: TFileType; size: number; storageKey: string } | undefined,
): Promise<FileContent | undefined> {
  if (!row) return undefined;
  try {
    return { id: row.id, type: row.type, size: row.size, body: await storage.get(row.storageKey) };
  } catch (err) {
    if (err instanceof StoredFileMissing) return undefined;
    if (err instanceof StorageUnavailable) throw storageRefusal();
    throw err;
  }
}

const CONTENT_COLUMNS = ['id', 'type', 'size', 'storageKey'] as const;

/** D56, `GET /v1/files/:fileId/content`: one of the store's files (another store's is missing, D7). */
export async function storeFileContent(db: Db, storage: FileStorage, storeId: string, fileId: string) {
  const row = await db
    .selectFrom('files')
    .select(CONTENT_COLUMNS)
    .where('id', '=', fileId)
    .where('storeId', '=', storeId)
    .executeTakeFirst();
  const content = await contentOf(storage, row);
  if (!content) throw refuse.missing('file not found');
  return content;
}

/** D56: the file a capability link opens, or undefined for any link that opens none. */
export async function linkedFileContent(
  db: Db,
  storage: FileStorage,
  links: FileLinks,
  fileId: string,
  token: string,
): Promise<FileContent | undefined> {
  const linkId = linkIdOf(links, token);
  if (!linkId) return undefined;
  const row = await db
    .selectFrom('files')
    .select(CONTENT_COLUMNS)
    .where('id', '=', fileId)
    .where('linkId', '=', linkId)
    .executeTakeFirst();
  return contentOf(storage, row);
}

/** D56: a file attached to nothing this long is deleted with its bytes. */
export const UNATTACHED_FILE_TTL_MS = 24 * 60 * 60 * 1000;
const SWEEP_BATCH = 200;

/**
 * Deletes one batch of files attached to nothing for a day, each with its bytes: the row is
 * deleted and the bytes removed in one transaction, so bytes that cannot be removed (the
 * storage out of reach) leave the row for the next sweep, and an attachment racing the sweep
 * waits on the row's lock and then finds no file. Answers how many were deleted.
 */
export async function sweepUnattachedFiles(db: Db, storage: FileStorage, now = new Date()): Promise<number> {
  const before = new Date(now.getTime() - UNATTACHED_FILE_TTL_MS);
  return transact(db, async (trx) => {
    const rows = await trx
      .deleteFrom('files')
      .where(
        'id',
        'in',
        trx
          .selectFrom('files')
          .select('id')
          .where('attachedAt', 'is', null)
          .where('createdAt', '<', before)
          .orderBy('createdAt')
          .limit(SWEEP_BATCH)
          .forUpdate()
          .skipLocked(),
      )
      .returning('storageKey')
      .execute();
    for (const { storageKey } of rows) await storage.remove(storageKey);
    return rows.length;
  });
}

/** How many photos one call of `fillCentreHashes` hashes, at most. */
const CENTRE_BATCH = 20;

/**
 * D57: one batch of the photos stored before their centre hash was kept, hashed from their
 * stored bytes, so the reuse search finds their cropped copies too; answers how many were
 * written. A photo whose bytes are gone or no longer decode takes its full hash as centre (it
 * compares as it did); a storage out of reach leaves the rest for the next call. The claim of
 * each is queued for its risk, which the files' trigger (on attachment) does not see. Several
 * processes may hash the same photo: one write wins, the others change nothing.
 */
export async function fillCentreHashes(db: Db, storage: FileStorage): Promise<number> {
  const rows = await db
    .selectFrom('files')
    .select(['id', 'storeId', 'storageKey'])
    .where('perceptualHash', 'is not', null)
    .where('perceptualHashCentre', 'is', null)
    .orderBy('id')
    .limit(CENTRE_BATCH)
    .execute();
  let filled = 0;
  for (const row of rows) {
    let bytes: Buffer | null = null;
    try {
      bytes = await buffer(await storage.get(row.storageKey));
    } catch (err) {
      if (!(err instanceof StoredFileMissing)) break;
    }
    const hash = bytes && (await centreHash(bytes).then(String, () => null));
    // Matched again with its centre hash, which can only bring photos closer.
    const written = await writeAndMatch(db, row.storeId, row.id, (trx) =>
      sql<{ claimId: string | null }>`
        with filled as (
          update files set perceptual_hash_centre = coalesce(${hash}::bigint, perceptual_hash)
          where id = ${row.id} and perceptual_hash_centre is null
          returning claim_id
        ), queued as (${queueClaimRisk(sql`select claim_id from filled where claim_id is not null`)})
        select claim_id from filled`.execute(trx),
    );
    filled += written.rows.length;
  }
  return filled;
}

/**
 * Deletes files of the store that are still attached to nothing, with their bytes: what a
 * form stored for a claim that was then refused, so that nothing of it stays (D56).
 */
export async function discardUnattachedFiles(
  db: Db,
  storage: FileStorage,
  storeId: string,
  fileIds: readonly string[],
): Promise<void> {
  if (fileIds.length === 0) return;
  const rows = await db
    .deleteFrom('files')
    .where('storeId', '=', storeId)
    .where('id', 'in', [...fileIds])
    .where('claimId', 'is', null)
    .returning('storageKey')
    .execute();
  for (const { storageKey } of rows) await storage.remove(storageKey).catch(() => {});
}
