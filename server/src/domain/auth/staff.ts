import { ROLE_SCOPES, type Role, type TStaffToken } from '@protection-service/contract';
import { sql } from 'kysely';
import type { Db } from '../../db/database';
import { transact } from '../../db/transact';
import { refuse } from '../../lib/refusal';
import { recordRevocation } from './revocations';
import { type DashboardTokenClaims, issueAccessToken, STAFF_TOKEN_TTL_S, type TokenKeys } from './tokens';

/**
 * Staff (D49): a store member acts on the store through the token routes with a staff token,
 * an access token carrying the scopes of their role. The token is bound to the dashboard
 * session that minted it (its grant: signing out ends it) and to the membership's staff grant
 * (replaced on every role change and gone with the membership: either ends it through the
 * revocation feed, D13, within a second on every process).
 */

/** What a store member is refused when taking away the store's last owner (409, D49). */
export const LAST_OWNER = 'a store keeps at least one owner: make another member owner first (D49)';

/** The SQLSTATE the membership trigger raises for the last owner (migrations: staff). */
const LAST_OWNER_SQLSTATE = 'SV049';

/** A feed entry of a membership's staff grant must outlive every staff token bound to it. */
const MEMBERSHIP_REVOCATION_TTL_S = STAFF_TOKEN_TTL_S + 60;

/**
 * `POST /v1/stores/:storeId/staff-tokens` (D49): a staff token of the signed-in user on a store
 * they are a member of, with their role's scopes; a test store's token is a test token (D45).
 * A store the user is not a member of answers exactly like a missing one (404, D7).
 */
export async function mintStaffToken(
  db: Db,
  keys: TokenKeys,
  session: Pick<DashboardTokenClaims, 'userId' | 'grantId'>,
  storeId: string,
): Promise<TStaffToken> {
  const member = await db
    .selectFrom('storeMembers as m')
    .innerJoin('stores as s', 's.id', 'm.storeId')
    .select(['m.role', 'm.staffGrantId', 's.livemode'])
    .where('m.storeId', '=', storeId)
    .where('m.userId', '=', session.userId)
    .executeTakeFirst();
  if (!member) throw refuse.missing('store not found');
  const scopes = [...ROLE_SCOPES[member.role]];
  const { token } = issueAccessToken(keys, {
    kind: 'staff',
    grantId: session.grantId,
    userId: session.userId,
    memberGrantId: member.staffGrantId,
    storeId,
    scopes,
    livemode: member.livemode,
  });
  return { access_token: token, token_type: 'Bearer', expires_in: STAFF_TOKEN_TTL_S, scope: scopes.join(' ') };
}

/** The membership trigger's refusal as the 409 of D49; anything else as it is. */
export async function keepingAnOwner<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if ((err as { code?: unknown }).code === LAST_OWNER_SQLSTATE) throw refuse.conflict(LAST_OWNER);
    throw err;
  }
}

/**
 * Gives a member another role (D49). The membership's staff grant is replaced and the old one
 * revoked in the same transaction, so the member's staff tokens of the old role fail within a
 * second everywhere and a new one carries the new role. Taking away the last owner answers 409:
 * the database refuses it under the store's row lock, so concurrent changes cannot both pass.
 * The caller applies the revocation in its own process before it answers (`RevocationFeed.refresh`).
 */
export async function changeMemberRole(db: Db, storeId: string, userId: string, role: Role): Promise<void> {
  await keepingAnOwner(transact(db, (trx) => changeMemberRoleIn(trx, storeId, userId, role)));
}

/** `changeMemberRole`'s writes, in the caller's transaction (wrap it in `keepingAnOwner`). */
export async function changeMemberRoleIn(trx: Db, storeId: string, userId: string, role: Role): Promise<void> {
  const changed = (
    await sql<{ previousGrantId: string }>`
      update store_members m set role = ${role}, staff_grant_id = gen_random_uuid()::text
      from (
        select store_id, user_id, staff_grant_id from store_members
        where store_id = ${storeId} and user_id = ${userId}
        for update
      ) previous
      where m.store_id = previous.store_id and m.user_id = previous.user_id and m.role <> ${role}
      returning previous.staff_grant_id as previous_grant_id
    `.execute(trx)
  ).rows[0];
  if (changed) {
    await revokeMembership(trx, changed.previousGrantId);
    return;
  }
  const member = await trx
    .selectFrom('storeMembers')
    .select('role')
    .where('storeId', '=', storeId)
    .where('userId', '=', userId)
    .executeTakeFirst();
  // The same role again changes nothing.
  if (!member) throw refuse.missing('member not found');
}

/**
 * Removes a member from a store (D49): their staff tokens on it fail within a second
 * everywhere; removing the last owner answers 409, as a role change does.
 */
export async function removeMember(db: Db, storeId: string, userId: string): Promise<void> {
  await keepingAnOwner(transact(db, (trx) => removeMemberIn(trx, storeId, userId)));
}

/** `removeMember`'s writes, in the caller's transaction (wrap it in `keepingAnOwner`). */
export async function removeMemberIn(trx: Db, storeId: string, userId: string): Promise<void> {
  const removed = await trx
    .deleteFrom('storeMembers')
    .where('storeId', '=', storeId)
    .where('userId', '=', userId)
    .returning('staffGrantId')
    .executeTakeFirst();
  if (!removed) throw refuse.missing('member not found');
  await revokeMembership(trx, removed.staffGrantId);
}

async function revokeMembership(trx: Db, staffGrantId: string): Promise<void> {
  await recordRevocation(trx, 'membership', staffGrantId, new Date(Date.now() + MEMBERSHIP_REVOCATION_TTL_S * 1000));
}
