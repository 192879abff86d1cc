import type { TTrackingSource, TTrackingSourceCreate, TTrackingSourceCreated } from '@protection-service/contract';
import type { Db } from '../../db/database';
import { transact } from '../../db/transact';
import { decryptedSecret, deriveKey, encrypt, randomCredential } from '../../lib/crypto';
import { newId } from '../../lib/ids';
import { refuse } from '../../lib/refusal';
import { recordAudit } from '../audit/record';
import { refuseUnlessManager } from '../identity/installations';
import type { TrackingProvider } from './providers';

/** What sources need of the service's settings. */
export interface SourceSettings {
  secretKey: Buffer;
  publicBaseUrl: string;
}

/** Prefix of a secret the service makes for a source (D54). */
const SOURCE_SECRET_PREFIX = 'svc_trsec_';

function inboundUrl(settings: SourceSettings, id: string): string {
  return `${settings.publicBaseUrl}/v1/tracking/inbound/${id}`;
}

function view(settings: SourceSettings, row: { id: string; provider: TrackingProvider; createdAt: Date }) {
  return {
    id: row.id,
    provider: row.provider,
    inboundUrl: inboundUrl(settings, row.id),
    createdAt: row.createdAt.toISOString(),
  } satisfies TTrackingSource;
}

/**
 * `POST /v1/stores/:storeId/tracking-sources` (D54): the secret is kept encrypted, as apps'
 * webhook secrets are, since signatures are checked with it. It is answered here only when
 * the service made it, and never again; the audit line names the provider, not the secret.
 */
export async function createTrackingSource(
  db: Db,
  settings: SourceSettings,
  userId: string,
  storeId: string,
  body: TTrackingSourceCreate,
): Promise<TTrackingSourceCreated> {
  await refuseUnlessManager(db, userId, storeId);
  const secret = body.secret ?? randomCredential(SOURCE_SECRET_PREFIX);
  return transact(db, async (trx) => {
    const store = await trx.selectFrom('stores').select('livemode').where('id', '=', storeId).executeTakeFirst();
    if (!store) throw refuse.missing('store not found');
    const row = await trx
      .insertInto('trackingSources')
      .values({
        id: newId('trs'),
        storeId,
        livemode: store.livemode,
        provider: body.provider,
        secretCiphertext: encrypt(deriveKey(settings.secretKey, 'tracking-secret-encryption'), secret),
      })
      .returning(['id', 'provider', 'createdAt'])
      .executeTakeFirstOrThrow();
    await recordAudit(trx, {
      store: storeId,
      actor: { type: 'user', id: userId },
      action: 'tracking_source.created',
      target: { type: 'tracking_source', id: row.id },
      changes: { provider: body.provider },
    });
    return body.secret === undefined ? { ...view(settings, row), secret } : view(settings, row);
  });
}

/** `GET /v1/stores/:storeId/tracking-sources`: the sources not removed, oldest first, no secrets. */
export async function listTrackingSources(
  db: Db,
  settings: SourceSettings,
  userId: string,
  storeId: string,
): Promise<TTrackingSource[]> {
  await refuseUnlessManager(db, userId, storeId);
  const rows = await db
    .selectFrom('trackingSources')
    .select(['id', 'provider', 'createdAt'])
    .where('storeId', '=', storeId)
    .where('removedAt', 'is', null)
    .orderBy('createdAt')
    .orderBy('id')
    .execute();
  return rows.map((r) => view(settings, r));
}

/** `DELETE …/tracking-sources/:sourceId`: its deliveries answer 401 from then on. */
export async function removeTrackingSource(db: Db, userId: string, storeId: string, sourceId: string): Promise<void> {
  await refuseUnlessManager(db, userId, storeId);
  await transact(db, async (trx) => {
    const removed = await trx
      .updateTable('trackingSources')
      .set({ removedAt: new Date() })
      .where('id', '=', sourceId)
      .where('storeId', '=', storeId)
      .where('removedAt', 'is', null)
      .returning('provider')
      .executeTakeFirst();
    if (!removed) throw refuse.missing('tracking source not found');
    await recordAudit(trx, {
      store: storeId,
      actor: { type: 'user', id: userId },
      action: 'tracking_source.removed',
      target: { type: 'tracking_source', id: sourceId },
      changes: { provider: removed.provider },
    });
  });
}

/** A source that can receive deliveries, with its secret; undefined when unknown or removed. */
export async function activeSource(
  db: Db,
  secretKey: Buffer,
  sourceId: string,
): Promise<{ id: string; storeId: string; livemode: boolean; provider: TrackingProvider; secret: string } | undefined> {
  const row = await db
    .selectFrom('trackingSources')
    .select(['id', 'storeId', 'livemode', 'provider', 'secretCiphertext'])
    .where('id', '=', sourceId)
    .where('removedAt', 'is', null)
    .executeTakeFirst();
  if (!row) return undefined;
  const secret = decryptedSecret(secretKey, 'tracking-secret-encryption', row.secretCiphertext);
  return { id: row.id, storeId: row.storeId, livemode: row.livemode, provider: row.provider, secret };
}
