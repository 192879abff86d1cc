import type { Scope, TInstallation } from '@protection-service/contract';
import { sql } from 'kysely';
import { announceStoreChange } from '../../cache/changes';
import type { Db } from '../../db/database';
import { newId } from '../../lib/ids';
import { refuse } from '../../lib/refusal';

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
export async function refuseUnlessMember(db: Db, userId: string, storeId: string): Promise<void> {
  if (!(await isStoreMember(db, userId, storeId))) throw refuse.missing('store not found');
}

/**
 * Refuses what only an owner or admin of the store may do (D49, D53): a non-member as a
 * missing store (404, D7), another role with 403.
 */
export async function refuseUnlessManager(db: Db, userId: string, storeId: string): Promise<void> {
  const row = await db
    .selectFrom('storeMembers')
    .select('role')
    .where('userId', '=', userId)
    .where('storeId', '=', storeId)
    .executeTakeFirst();
  if (!row) throw refuse.missing('store not found');
  if (row.role !== 'owner' && row.role !== 'admin')
    throw refuse.forbidden('only an owner or admin of the store may do this');
}

interface UpsertInstallationInput {
  storeId: string;
  clientId: string;
  /** Granted scopes, later style (D16); they replace the current installation's scopes. */
  scopes: readonly Scope[];
  /** The dashboard user approving the install (D10). */
  userId: string;
}

interface UpsertedInstallation {
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
