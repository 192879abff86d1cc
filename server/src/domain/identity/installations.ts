import type { Scope, TInstallation } from '@protection-service/contract';
import { sql } from 'kysely';
import { announceStoreChange } from '../../cache/changes';
import type { Db } from '../../db/database';
import { transact } from '../../db/transact';
import { newId } from '../../lib/ids';
import { refuse } from '../../lib/refusal';
import { recordRevocation } from '../auth/revocations';
import { ACCESS_TOKEN_TTL_S, DASHBOARD_TOKEN_TTL_S } from '../auth/tokens';
import { softDeleteContextOnUninstall } from '../partner/contexts';
import { endPendingDeliveries } from '../webhooks/deliveries';

/**
 * Installations of apps on stores (D10, D14). A store has at most one active installation of
 * an app (unique partial index); uninstalled ones stay as history with `uninstalledAt` set.
 */

/** Whether the dashboard user belongs to the store (D7, D8). Unknown ids answer false. */
export async function isStoreMember(db: Db, userId: string, storeId: string): Promise<boolean> {
  const row = await db
    .selectFrom('storeMembers')
    .select('storeId')
    .where('userId', '=', userId)
    .where('storeId', '=', storeId)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Refuses a store the dashboard user does not belong to exactly as a missing one (D7: 404,
 * never 403).
 */
async function refuseUnlessMember(db: Db, userId: string, storeId: string): Promise<void> {
  if (!(await isStoreMember(db, userId, storeId))) throw refuse.missing('store not found');
}

export interface UpsertInstallationInput {
  storeId: string;
  clientId: string;
  /** Granted scopes, later style (D16); they replace the current installation's scopes. */
  scopes: readonly Scope[];
  /** The dashboard user approving the install (D10). */
  userId: string;
}

export interface UpsertedInstallation {
  id: string;
  storeId: string;
  clientId: string;
  scopes: Scope[];
  /** True when this call created the installation, false when it updated the active one. */
  created: boolean;
}

/**
 * Creates the active installation of (store, app), or updates the scopes of the one that
 * exists (D10). Call it inside the approve transaction. Race-free: two concurrent approvals
 * meet on the unique partial index and the second one updates.
 */
export async function upsertInstallation(trx: Db, input: UpsertInstallationInput): Promise<UpsertedInstallation> {
  const scopes = [...new Set(input.scopes)];
  const row = await trx
    .insertInto('installations')
    .values({
      id: newId('in'),
      storeId: input.storeId,
      clientId: input.clientId,
      scopes,
      installedByUserId: input.userId,
    })
    .onConflict((oc) =>
      oc
        .columns(['storeId', 'clientId'])
        .where('uninstalledAt', 'is', null)
        .doUpdateSet({ scopes, updatedAt: sql`now()` }),
    )
    .returning(['id', 'storeId', 'clientId', 'scopes', sql<boolean>`(xmax = 0)`.as('created')])
    .executeTakeFirstOrThrow();
  // D29: an install makes the app's cohorts visible on the store's public reads.
  await announceStoreChange(trx, input.storeId);
  return { ...row, scopes: row.scopes as Scope[] };
}

/** The active installation of (store, app), if any. */
export async function findActiveInstallation(
  db: Db,
  storeId: string,
  clientId: string,
): Promise<{ id: string; scopes: Scope[] } | undefined> {
  const row = await db
    .selectFrom('installations')
    .select(['id', 'scopes'])
    .where('storeId', '=', storeId)
    .where('clientId', '=', clientId)
    .where('uninstalledAt', 'is', null)
    .executeTakeFirst();
  return row && { id: row.id, scopes: row.scopes as Scope[] };
}

/** Every installation of the user's store, past ones included (D14), newest first. */
export async function listInstallations(db: Db, userId: string, storeId: string): Promise<TInstallation[]> {
  await refuseUnlessMember(db, userId, storeId);
  const rows = await db
    .selectFrom('installations as i')
    .innerJoin('apps as a', 'a.clientId', 'i.clientId')
    .select([
      'i.id',
      'i.storeId',
      'i.clientId',
      'a.name as appName',
      'i.scopes',
      'i.installedAt',
      'i.updatedAt',
      'i.uninstalledAt',
    ])
    .where('i.storeId', '=', storeId)
    .orderBy('i.installedAt', 'desc')
    .orderBy('i.id', 'desc')
    .execute();
  return rows.map((r) => ({
    id: r.id,
    storeId: r.storeId,
    clientId: r.clientId,
    appName: r.appName,
    scopes: r.scopes as Scope[],
    installedAt: r.installedAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
    uninstalledAt: r.uninstalledAt ? r.uninstalledAt.toISOString() : null,
  }));
}

/**
 * How long an installation revocation must be remembered: no token of the installation
 * can outlive it. Access tokens live ACCESS_TOKEN_TTL_S; session tokens (D15) 60 s plus
 * leeway; dashboard tokens are not installation tokens. Refresh tokens are revoked in the
 * database, not through the feed.
 */
export const INSTALLATION_REVOCATION_TTL_S = Math.max(ACCESS_TOKEN_TTL_S, DASHBOARD_TOKEN_TTL_S, 60 + 5) + 60;

/**
 * Uninstalls the app from the user's store (D14) in ONE transaction: marks the installation
 * uninstalled, revokes its token families and refresh tokens in the database, and records an
 * installation revocation every server process applies within about a second (D13).
 * Refused (404) when the app is not installed on the store.
 */
export async function uninstall(db: Db, userId: string, storeId: string, clientId: string): Promise<void> {
  await refuseUnlessMember(db, userId, storeId);
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
