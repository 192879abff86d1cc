import type { Role, TMember, TMemberInvite, TMemberNotices } from '@protection-service/contract';
import { sql } from 'kysely';
import type { Db } from '../../db/database';
import { transact } from '../../db/transact';
import { type CapabilityLinks, capabilityLinks, linkToken, newLinkId } from '../../lib/capability-links';
import { newId } from '../../lib/ids';
import { refuse } from '../../lib/refusal';
import { type AuditAction, recordAudit } from '../audit/record';
import { changeMemberRoleIn, keepingAnOwner, removeMemberIn } from '../auth/staff';
import { writeInvitationMail } from '../mail/outbox';

/**
 * A store's team (D53): its members and pending invitations, who may change them, and each
 * member's merchant notices. Every change is one function with its own transaction
 * (`inviteMember`, `changeRole`, `removeMember`, `updateNotices`).
 *
 * Who may: reading the team, any member; inviting, changing roles and removing, an owner or
 * admin (others 403); an admin never touches an owner nor makes one (403); the last owner is
 * kept by the database (409, D49). A store the caller is not a member of is a missing one (D7).
 */

/** D53: an invitation's link works this long. */
export const INVITATION_TTL_MS = 7 * 24 * 3600 * 1000;

const INVITATION_ID = /^inv_/;

/** Where an invitation's link leads (D53). */
export const INVITATION_PATH = '/dashboard/invitations';

/** Invitation links are capability links like the shopper's claim link (D41), under a key of their own. */
export function invitationLinks(secretKey: Buffer, publicBaseUrl: string): CapabilityLinks {
  return capabilityLinks(secretKey, 'member-invitation', publicBaseUrl);
}

/** The link an invitation's e-mail carries: `<PUBLIC_BASE_URL>/dashboard/invitations/<token>`. */
export function invitationUrl(links: CapabilityLinks, linkId: string): string {
  return `${links.baseUrl}${INVITATION_PATH}/${linkToken(links, linkId)}`;
}

interface Caller {
  userId: string;
  role: Role;
}

/** The caller's membership, locked for the change (`forUpdate`), or 404 (D7). */
async function callerOf(db: Db, userId: string, storeId: string, forUpdate = false): Promise<Caller> {
  let query = db
    .selectFrom('storeMembers')
    .select(['userId', 'role'])
    .where('storeId', '=', storeId)
    .where('userId', '=', userId);
  if (forUpdate) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  if (!row) throw refuse.missing('store not found');
  return row;
}

/** D49, D53: only an owner or admin changes the team, and only an owner touches owners. */
function mayChange(caller: Caller, targetRole: Role, newRole?: Role): void {
  if (caller.role !== 'owner' && caller.role !== 'admin') {
    throw refuse.forbidden('only an owner or admin of the store may change its team');
  }
  if (caller.role === 'admin' && (targetRole === 'owner' || newRole === 'owner')) {
    throw refuse.forbidden('only an owner may invite, change or remove an owner (D53)');
  }
}

const noticesOf = (r: { notifyClaimFiled: boolean; notifyShopperReplied: boolean }): TMemberNotices => ({
  claimFiled: r.notifyClaimFiled,
  shopperReplied: r.notifyShopperReplied,
});

const ROLE_ORDER: Record<Role, number> = { owner: 0, admin: 1, agent: 2, viewer: 3 };

/** The team's members and pending (unexpired) invitations, as `GET …/members` answers them. */
async function readTeam(db: Db, storeId: string): Promise<TMember[]> {
  const [members, invitations] = await Promise.all([
    db
      .selectFrom('storeMembers as m')
      .innerJoin('dashboardUsers as u', 'u.id', 'm.userId')
      .select(['u.id', 'u.email', 'u.firstName', 'u.lastName', 'm.role', 'm.createdAt'])
      .select(['m.notifyClaimFiled', 'm.notifyShopperReplied'])
      .where('m.storeId', '=', storeId)
      .execute(),
    db
      .selectFrom('memberInvitations')
      .select(['id', 'email', 'role', 'createdAt', 'expiresAt'])
      .where('storeId', '=', storeId)
      .where('expiresAt', '>', new Date())
      .orderBy('createdAt')
      .execute(),
  ]);
  const active: TMember[] = members
    .map((m) => ({
      id: m.id,
      email: m.email,
      name: [m.firstName, m.lastName].filter((part) => part).join(' ') || null,
      role: m.role,
      status: 'active' as const,
      invitedAt: null,
      expiresAt: null,
      joinedAt: m.createdAt.toISOString(),
      notices: noticesOf(m),
    }))
    .sort((a, b) => ROLE_ORDER[a.role] - ROLE_ORDER[b.role] || a.email.localeCompare(b.email));
  const invited: TMember[] = invitations.map((i) => ({
    id: i.id,
    email: i.email,
    name: null,
    role: i.role,
    status: 'invited' as const,
    invitedAt: i.createdAt.toISOString(),
    expiresAt: i.expiresAt.toISOString(),
    joinedAt: null,
    notices: { claimFiled: false, shopperReplied: false },
  }));
  return [...active, ...invited];
}

async function memberOf(db: Db, storeId: string, id: string): Promise<TMember> {
  const member = (await readTeam(db, storeId)).find((m) => m.id === id);
  if (!member) throw refuse.missing('member not found');
  return member;
}

/** `GET /v1/stores/:storeId/members` (D53): any member reads the team. */
export async function listMembers(db: Db, userId: string, storeId: string): Promise<TMember[]> {
  await callerOf(db, userId, storeId);
  return readTeam(db, storeId);
}

/**
 * `POST /v1/stores/:storeId/members` (D53): an invitation with a new single-use link, valid 7
 * days, and its e-mail, in one transaction. Inviting the same e-mail again replaces the link
 * (the old one answers 404 from then on) and the role; an e-mail already a member answers 409.
 */
export async function inviteMember(db: Db, userId: string, storeId: string, input: TMemberInvite): Promise<TMember> {
  const email = input.email.trim().toLowerCase();
  const invitationId = await transact(db, async (trx) => {
    const caller = await callerOf(trx, userId, storeId, true);
    mayChange(caller, input.role, input.role);
    const member = await trx
      .selectFrom('storeMembers as m')
      .innerJoin('dashboardUsers as u', 'u.id', 'm.userId')
      .select('m.userId')
      .where('m.storeId', '=', storeId)
      .where('u.email', '=', email)
      .executeTakeFirst();
    if (member) throw refuse.conflict('this e-mail belongs to a member of the store already');
    const values = {
      role: input.role,
      linkId: newLinkId(),
      invitedBy: userId,
      createdAt: new Date(),
      expiresAt: new Date(Date.now() + INVITATION_TTL_MS),
    };
    const row = await trx
      .insertInto('memberInvitations')
      .values({ id: newId('inv'), storeId, email, ...values })
      .onConflict((oc) => oc.columns(['storeId', 'email']).doUpdateSet(values))
      .returning('id')
      .executeTakeFirstOrThrow();
    await writeInvitationMail(trx, { storeId, invitationId: row.id, recipient: email });
    await recordAudit(trx, {
      store: storeId,
      actor: { type: 'user', id: userId },
      action: 'member.invited',
      target: { type: 'invitation', id: row.id },
      changes: { email, role: input.role },
    });
    return row.id;
  });
  return memberOf(db, storeId, invitationId);
}

/**
 * `PATCH …/members/:userId {role}` (D53): a member's role (their staff tokens end, D49) or a
 * pending invitation's. The caller applies the revocation in its process before answering.
 */
export async function changeRole(db: Db, userId: string, storeId: string, targetId: string, role: Role): Promise<void> {
  await keepingAnOwner(
    transact(db, async (trx) => {
      const caller = await callerOf(trx, userId, storeId, true);
      if (INVITATION_ID.test(targetId)) {
        const invitation = await trx
          .selectFrom('memberInvitations')
          .select('role')
          .where('storeId', '=', storeId)
          .where('id', '=', targetId)
          .forUpdate()
          .executeTakeFirst();
        if (!invitation) throw refuse.missing('member not found');
        mayChange(caller, invitation.role, role);
        await trx.updateTable('memberInvitations').set({ role }).where('id', '=', targetId).execute();
        await auditMember(trx, userId, storeId, 'member.role_changed', targetId, {
          before: invitation.role,
          after: role,
        });
        return;
      }
      const target = targetId === userId ? caller : await callerOf(trx, targetId, storeId, true).catch(notAMember);
      mayChange(caller, target.role, role);
      await changeMemberRoleIn(trx, storeId, targetId, role);
      await auditMember(trx, userId, storeId, 'member.role_changed', targetId, { before: target.role, after: role });
    }),
  );
}

/**
 * `DELETE …/members/:userId` (D53): removes a member (their staff tokens end, D49) or
 * withdraws a pending invitation (its link answers 404 from then on).
 */
export async function removeMember(db: Db, userId: string, storeId: string, targetId: string): Promise<void> {
  await keepingAnOwner(
    transact(db, async (trx) => {
      const caller = await callerOf(trx, userId, storeId, true);
      if (INVITATION_ID.test(targetId)) {
        const invitation = await trx
          .deleteFrom('memberInvitations')
          .where('storeId', '=', storeId)
          .where('id', '=', targetId)
          .returning('role')
          .executeTakeFirst();
        if (!invitation) throw refuse.missing('member not found');
        mayChange(caller, invitation.role);
        await auditMember(trx, userId, storeId, 'member.removed', targetId, { role: invitation.role });
        return;
      }
      const target = targetId === userId ? caller : await callerOf(trx, targetId, storeId, true).catch(notAMember);
      mayChange(caller, target.role);
      await removeMemberIn(trx, storeId, targetId);
      await auditMember(trx, userId, storeId, 'member.removed', targetId, { role: target.role });
    }),
  );
}

/** The audit line of a change to the team (D53): the target is a user, or an invitation `inv_…`. */
function auditMember(
  trx: Db,
  userId: string,
  storeId: string,
  action: AuditAction,
  targetId: string,
  changes: unknown,
) {
  const target = { type: INVITATION_ID.test(targetId) ? 'invitation' : 'user', id: targetId };
  return recordAudit(trx, { store: storeId, actor: { type: 'user', id: userId }, action, target, changes });
}

/** A target that is no member of the store: the member is missing, not the store. */
function notAMember(): never {
  throw refuse.missing('member not found');
}

/**
 * `PATCH …/members/:userId {notices}` (D53): a member opts in or out of merchant notices, for
 * themself only (another member's answers 403).
 */
export async function updateNotices(
  db: Db,
  userId: string,
  storeId: string,
  targetId: string,
  notices: Partial<TMemberNotices>,
): Promise<void> {
  await callerOf(db, userId, storeId);
  if (targetId !== userId) throw refuse.forbidden("a member chooses their own notices only, never another's");
  const set = {
    ...(notices.claimFiled === undefined ? {} : { notifyClaimFiled: notices.claimFiled }),
    ...(notices.shopperReplied === undefined ? {} : { notifyShopperReplied: notices.shopperReplied }),
  };
  if (Object.keys(set).length === 0) return;
  await db.updateTable('storeMembers').set(set).where('storeId', '=', storeId).where('userId', '=', userId).execute();
}

/** `PATCH …/members/:userId` (D53): the role change and the notices, then the member as it is now. */
export async function updateMember(
  db: Db,
  userId: string,
  storeId: string,
  targetId: string,
  change: { role?: Role; notices?: Partial<TMemberNotices> },
): Promise<TMember> {
  await callerOf(db, userId, storeId);
  // The notices are the caller's own: refused before any role changes.
  if (change.notices && targetId !== userId) await updateNotices(db, userId, storeId, targetId, change.notices);
  if (change.role !== undefined) await changeRole(db, userId, storeId, targetId, change.role);
  if (change.notices) await updateNotices(db, userId, storeId, targetId, change.notices);
  return memberOf(db, storeId, targetId);
}

/** What the invitation page shows (D53): the store, the e-mail invited, whether it has an account. */
export interface InvitationView {
  storeId: string;
  storeName: string;
  email: string;
  role: Role;
  hasAccount: boolean;
}

/** The unexpired invitation of a link id, or undefined (the page's 404). */
export async function invitationView(db: Db, linkId: string): Promise<InvitationView | undefined> {
  const row = await db
    .selectFrom('memberInvitations as i')
    .innerJoin('stores as s', 's.id', 'i.storeId')
    .leftJoin('dashboardUsers as u', 'u.email', 'i.email')
    .select(['i.storeId', 's.name as storeName', 'i.email', 'i.role', 'u.id as userId'])
    .where('i.linkId', '=', linkId)
    .where('i.expiresAt', '>', sql<Date>`now()`)
    .executeTakeFirst();
  if (!row) return undefined;
  const { userId, ...view } = row;
  return { ...view, hasAccount: userId !== null };
}

/**
 * Accepts an invitation (D53), once: the person joins the store with the invited role and the
 * invitation is gone. `user` is the account that joins: an existing one whose password was
 * checked, or a new one (`createUser` below). Undefined when the link no longer opens one.
 */
export async function acceptInvitation(
  db: Db,
  linkId: string,
  user: { id: string } | { newUser: { email: string; name: string; passwordHash: string } },
): Promise<{ userId: string; storeId: string } | undefined> {
  return transact(db, async (trx) => {
    const invitation = await trx
      .deleteFrom('memberInvitations')
      .where('linkId', '=', linkId)
      .where('expiresAt', '>', sql<Date>`now()`)
      .returning(['storeId', 'email', 'role'])
      .executeTakeFirst();
    if (!invitation) return undefined;
    let userId: string;
    if ('id' in user) userId = user.id;
    else {
      userId = newId('usr');
      const n = user.newUser;
      const inserted = await trx
        .insertInto('dashboardUsers')
        .values({
          id: userId,
          email: invitation.email,
          firstName: n.name,
          lastName: null,
          passwordHash: n.passwordHash,
        })
        .onConflict((oc) => oc.column('email').doNothing())
        .returning('id')
        .executeTakeFirst();
      // Someone made an account with this e-mail meanwhile: they sign in to join instead.
      if (!inserted) throw refuse.conflict('an account with this e-mail exists: sign in with it to join');
    }
    await trx
      .insertInto('storeMembers')
      .values({ storeId: invitation.storeId, userId, role: invitation.role })
      .onConflict((oc) => oc.columns(['storeId', 'userId']).doNothing())
      .execute();
    return { userId, storeId: invitation.storeId };
  });
}
