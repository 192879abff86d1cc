import { sql } from 'kysely';
import { announceStoreDeleted } from '../../cache/changes';
import type { Db } from '../../db/database';
import { transact } from '../../db/transact';
import { refuse } from '../../lib/refusal';
import { recordAudit } from '../audit/record';
import { recordRevocation } from '../auth/revocations';
import { ACCESS_TOKEN_TTL_S, DASHBOARD_TOKEN_TTL_S } from '../auth/tokens';
import { refuseUnlessManager } from '../identity/installations';
import { lockOwnedApp } from '../identity/test-stores';
import { softDeleteContextOnUninstall } from '../partner/contexts';
import { endPendingDeliveries } from '../webhooks/deliveries';

/**
 * The ends of an installation (D14, D45): an app uninstalled from a store, and a test store
 * deleted with its installations. Each reaches into several areas (identity's rows, auth's
 * tokens and revocations, the partner context, the webhook deliveries), so it sits above them
 * and none of them imports another for it.
 */

const STORE_NOT_FOUND = 'test store not found';

/**
 * How long an installation revocation must be remembered: no token of the installation
 * can outlive it. Access tokens live ACCESS_TOKEN_TTL_S; session tokens (D15) 60 s plus
 * leeway; dashboard tokens are not installation tokens. Refresh tokens are revoked in the
 * database, not through the feed.
 */
const INSTALLATION_REVOCATION_TTL_S = Math.max(ACCESS_TOKEN_TTL_S, DASHBOARD_TOKEN_TTL_S, 60 + 5) + 60;

/**
 * Uninstalls the app from the user's store (D14) in ONE transaction: marks the installation
 * uninstalled, revokes its token families and refresh tokens in the database, and records an
 * installation revocation every server process applies within about a second (D13).
 * Refused (404) when the app is not installed on the store, 403 for a role other than owner or admin.
 */
export async function uninstall(db: Db, userId: string, storeId: string, clientId: string): Promise<void> {
  // An owner's or admin's act (D49): an agent or viewer is refused (403), a non-member 404 (D7).
  await refuseUnlessManager(db, userId, storeId);
  return transact(db, async (trx) => {
    const now = new Date();
    const inst = await trx
      .updateTable('installations')
      .set({ uninstalledAt: now, updatedAt: now })
      .where('storeId', '=', storeId)
      .where('clientId', '=', clientId)
      .where('uninstalledAt', 'is', null)
      .returning('id')
      .executeTakeFirst();
    if (!inst) throw refuse.missing('app not installed on this store');
    await recordAudit(trx, {
      store: storeId,
      actor: { type: 'user', id: userId },
      action: 'app.uninstalled',
      target: { type: 'app', id: clientId },
    });
    const grants = await trx
      .updateTable('grants')
      .set({ revokedAt: now, revokedReason: 'uninstalled' })
      .where('installationId', '=', inst.id)
      .where('revokedAt', 'is', null)
      .returning('id')
      .execute();
    const grantIds = grants.map((g) => g.id);
    if (grantIds.length > 0) {
      await trx
        .updateTable('refreshTokens')
        .set({ retiredAt: now })
        .where('grantId', 'in', grantIds)
        .where('retiredAt', 'is', null)
        .execute();
    }
    // Unused authorization codes of the installation must not mint tokens any more.
    await trx
      .updateTable('authorizationCodes')
      .set({ usedAt: now })
      .where('installationId', '=', inst.id)
      .where('usedAt', 'is', null)
      .execute();
    await recordRevocation(
      trx,
      'installation',
      inst.id,
      new Date(now.getTime() + INSTALLATION_REVOCATION_TTL_S * 1000),
    );
    // D14: its partner context is soft-deleted; public reads fall back to merchant defaults.
    await softDeleteContextOnUninstall(trx, storeId, clientId);
    // D14/D35: its webhook subscription goes with it (the fan-out takes installed apps only),
    // and its pending deliveries end failed.
    await endPendingDeliveries(trx, inst.id);
  });
}

/**
 * Deletes a test store of the owner's app and every row of it (D45): the foreign keys
 * cascade from the store to all its tables, its installations, grants, refresh tokens and
 * codes included. Its access tokens, which live in no table, are revoked with its
 * installations through the feed (D13), so they stop working within a second. A live store,
 * or a test store of another app, answers 404.
 */
export async function deleteTestStore(db: Db, ownerUserId: string, clientId: string, storeId: string): Promise<void> {
  await transact(db, async (trx) => {
    await lockOwnedApp(trx, clientId, ownerUserId);
    const store = await trx
      .selectFrom('stores')
      .select('id')
      .where('id', '=', storeId)
      .where('testClientId', '=', clientId)
      .where('livemode', '=', false)
      .forUpdate()
      .executeTakeFirst();
    if (!store) throw refuse.missing(STORE_NOT_FOUND);
    const installations = await trx.selectFrom('installations').select('id').where('storeId', '=', storeId).execute();
    const until = new Date(Date.now() + INSTALLATION_REVOCATION_TTL_S * 1000);
    for (const { id } of installations) await recordRevocation(trx, 'installation', id, until);
    await trx.deleteFrom('storeChanges').where('storeId', '=', storeId).execute();
    await sql`delete from stores where id = ${storeId} and not livemode`.execute(trx);
    await announceStoreDeleted(trx, storeId);
  });
}
