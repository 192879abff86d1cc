import { z } from 'zod';
import { ZEmail, ZId, ZTimestamp } from './common';
import { ZRole } from './identity';

/** The merchant notices a member opted in to (D53): an e-mail per event, with the claim's dashboard link. */
export const ZMemberNotices = z
  .object({
    claimFiled: z.boolean().describe('An e-mail when a claim of the store is filed'),
    shopperReplied: z.boolean().describe('An e-mail when a shopper posts a message on a claim of the store'),
  })
  .strict();
export type TMemberNotices = z.infer<typeof ZMemberNotices>;

export const MEMBER_STATUSES = ['active', 'invited'] as const;

/**
 * A store's team member (D53): a person who joined (`active`, `id` is their user id) or one
 * invited who has not joined yet (`invited`, `id` is the invitation's id, `inv_…`).
 */
export const ZMember = z
  .object({
    id: ZId.describe('The user id of an active member, the invitation id of an invited one'),
    email: ZEmail,
    name: z.string().nullable().describe("The person's name; null until they join"),
    role: ZRole,
    status: z.enum(MEMBER_STATUSES),
    invitedAt: ZTimestamp.nullable().describe('When the pending invitation was sent; null once joined'),
    expiresAt: ZTimestamp.nullable().describe("When the invitation's link stops working (7 days); null once joined"),
    joinedAt: ZTimestamp.nullable().describe('When the person joined the store; null while invited'),
    notices: ZMemberNotices,
  })
  .strict();
export type TMember = z.infer<typeof ZMember>;

export const ZMemberInvite = z
  .object({
    email: ZEmail.describe('Who to invite; another invitation of the same e-mail replaces the link'),
    role: ZRole,
  })
  .strict();
export type TMemberInvite = z.infer<typeof ZMemberInvite>;

/**
 * A change of a member: `role` by an owner or admin, `notices` by the member themself
 * (D53). Sparse: an empty body changes nothing and answers the member.
 */
export const ZMemberUpdate = z
  .object({
    role: ZRole.optional(),
    notices: ZMemberNotices.partial().strict().optional(),
  })
  .strict();
export type TMemberUpdate = z.infer<typeof ZMemberUpdate>;
