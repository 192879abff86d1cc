import { sql } from 'kysely';
import type { Db } from '../../db/database';
import { refuse } from '../../lib/refusal';

/**
 * D56: a claim item's `images` and a message's `medias` may name the service's own files by
 * their capability link. Such a file must be the store's and attached nowhere else; once the
 * claim or message is written the file is attached to its claim, so the sweep of unattached
 * files leaves it. Any other URL is an address the caller hosts, kept as sent.
 */

/** A URL where the body names it: `body.medias.0`. */
export interface NamedUrl {
  path: string;
  url: string;
}

/** The path of a file link, whatever host it was written with: `/files/<id>/<random half><MAC>`. */
const FILE_LINK_PATH = /\/files\/(file_[a-z2-7]{24})\/([0-9a-f]{64})[A-Za-z0-9_-]{22}$/;

/**
 * The ids of the files the URLs name, checked: each names a file of `storeId` that is not
 * attached to another claim (`claimId`, when the claim exists already, may hold it). Refuses
 * 422 naming the first item that breaks the rule. With `lock`, in the caller's transaction,
 * the rows are locked (in id order) and read as the last writer to them left them, so what was
 * checked holds until the transaction ends.
 */
export async function attachableFiles(
  db: Db,
  storeId: string,
  urls: readonly NamedUrl[],
  claimId: string | null = null,
  { lock = false }: { lock?: boolean } = {},
): Promise<string[]> {
  const refs = urls.flatMap((u) => {
    const match = FILE_LINK_PATH.exec(u.url.split(/[?#]/)[0] ?? '');
    return match ? [{ path: u.path, fileId: match[1]!, linkId: match[2]! }] : [];
  });
  if (refs.length === 0) return [];
  const query = db
    .selectFrom('files')
    .select(['id', 'storeId', 'linkId', 'claimId'])
    .where(
      'id',
      'in',
      refs.map((r) => r.fileId),
    )
    .orderBy('id');
  const rows = await (lock ? query.forNoKeyUpdate() : query).execute();
  const byId = new Map(rows.map((r) => [r.id, r]));
  for (const ref of refs) {
    const row = byId.get(ref.fileId);
    if (!row || row.linkId !== ref.linkId || row.storeId !== storeId) {
      throw refuse.unprocessable(`${ref.path}: names no file of this store`);
    }
    if (row.claimId !== null && row.claimId !== claimId) {
      throw refuse.unprocessable(`${ref.path}: names a file already attached to another claim`);
    }
  }
  return [...new Set(refs.map((r) => r.fileId))];
}

/** Attaches the checked files to the claim just written (or written to). */
export async function attachFiles(db: Db, claimId: string, fileIds: readonly string[]): Promise<void> {
  if (fileIds.length === 0) return;
  await db
    .updateTable('files')
    .set({ claimId, attachedAt: new Date() })
    .where('id', 'in', [...fileIds])
    .where((w) => w.or([w('claimId', 'is', null), w('claimId', '=', claimId)]))
    .execute();
}

/**
 * A trip's statement that locks the files a claim is about to take (in id order, as every
 * taker locks them), so the claim's statement after it reads them as the last taker left them.
 */
export function lockFiles(fileIds: readonly string[]) {
  return sql`select id from files where id = any(${[...fileIds]}::text[]) order by id for no key update`;
}

/**
 * A trip's statement that attaches the locked files to the claim its statement wrote, if it
 * wrote one, in the filing's own transaction (D57: the claim's risk, in the same transaction,
 * sees its photos).
 */
export function attachStatement(claimId: string, fileIds: readonly string[]) {
  return sql`
    update files set claim_id = ${claimId}, attached_at = now()
    where id = any(${[...fileIds]}::text[]) and claim_id is null
      and exists (select 1 from claims where id = ${claimId})
  `;
}

/**
 * D56: the claim was not written because another claim or message took one of its files
 * first; refuses 422 naming the first item whose file is no longer free, as the check does.
 */
export async function refuseTaken(db: Db, storeId: string, urls: readonly NamedUrl[]): Promise<never> {
  await attachableFiles(db, storeId, urls);
  throw refuse.unprocessable(`${urls[0]?.path ?? 'body'}: names a file already attached to another claim`);
}
