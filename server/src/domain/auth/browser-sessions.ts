import type { Role } from '@protection-service/contract';
import type { Db } from '../../db/database';
import { transact } from '../../db/transact';
import { newId } from '../../lib/ids';
import { recordAudit } from '../audit/record';
import { revokeFamily } from './revocations';

/**
 * A dashboard user's session in a browser (D40): a `dashboard` grant with no refresh token,
 * whose id is the session id. Signing in always starts a new one (no session fixation);
 * signing out revokes it. The cookie that carries the id is the page layer's business.
 */

/** D40: a browser session lives at most 12 hours. */
export const BROWSER_SESSION_TTL_S = 12 * 3600;

export async function startBrowserSession(db: Db, userId: string): Promise<string> {
  const id = newId('gr');
  await transact(db, async (trx) => {
    await trx.insertInto('grants').values({ id, kind: 'dashboard', userId }).execute();
    await recordSignIn(trx, userId);
  });
  return id;
}

/** D53: a sign-in, on the log of each store the user is a member of. */
export function recordSignIn(trx: Db, userId: string): Promise<void> {
  return recordAudit(trx, {
    store: { memberOf: userId },
    actor: { type: 'user', id: userId },
    action: 'user.signed_in',
    target: { type: 'user', id: userId },
  });
}

/** The signed-in user, when the session is neither revoked nor older than 12 hours. */
export async function browserSessionUser(
  db: Db,
  sessionId: string,
): Promise<{ id: string; email: string } | undefined> {
  return db
    .selectFrom('grants as g')
    .innerJoin('dashboardUsers as u', 'u.id', 'g.userId')
    .select(['u.id', 'u.email'])
    .where('g.id', '=', sessionId)
    .where('g.kind', '=', 'dashboard')
    .where('g.revokedAt', 'is', null)
    .where('g.createdAt', '>', new Date(Date.now() - BROWSER_SESSION_TTL_S * 1000))
    .executeTakeFirst();
}

export async function endBrowserSession(db: Db, sessionId: string): Promise<void> {
  await transact(db, (trx) => revokeFamily(trx, sessionId, 'signed out'));
}

/** A store of the signed-in user, with their role there (D49) and its mode (D45). */
export interface MemberStore {
  id: string;
  name: string;
  domain: string;
  livemode: boolean;
  role: Role;
}

/** The stores a user belongs to (D8), by name: the store choice (D40) and the dashboard's list (D50). */
export async function storesOfUser(db: Db, userId: string): Promise<MemberStore[]> {
  return db
    .selectFrom('storeMembers as m')
    .innerJoin('stores as s', 's.id', 'm.storeId')
    .select(['s.id', 's.name', 's.domain', 's.livemode', 'm.role'])
    .where('m.userId', '=', userId)
    .orderBy('s.name')
    .orderBy('s.id')
    .execute();
}
