import { z } from 'zod';
import { dashboardErrors, ZError } from '../errors';
import { routeGroup, routeMeta } from '../meta';
import { data, ZDeleted, ZId } from '../schemas/common';
import { ZMember, ZMemberInvite, ZMemberUpdate } from '../schemas/members';

const dashboardRoute = routeMeta('dashboard', 'data');
const RULES =
  'An owner or admin of the store only (others 403, D49); an admin cannot invite, change or remove an owner, nor make anyone owner (403); ' +
  'taking away the last owner answers 409 (D49). A store the user is not a member of answers 404 (D7).';

/** A store's team (D53): members, invitations and merchant notices. Dashboard JWT of a member. */
export const memberRoutes = routeGroup({
  list: {
    method: 'GET',
    path: '/v1/stores/:storeId/members',
    pathParams: z.object({ storeId: ZId }),
    responses: { 200: data(z.array(ZMember)), ...dashboardErrors },
    summary: "List the store's team",
    description:
      'The members, owners first, then the pending invitations. Any member may read it (D53); a store the user is not a member of answers 404 (D7).',
    metadata: dashboardRoute('D53', ['D7', 'D49']),
  },
  invite: {
    method: 'POST',
    path: '/v1/stores/:storeId/members',
    pathParams: z.object({ storeId: ZId }),
    body: ZMemberInvite,
    responses: { 201: data(ZMember), ...dashboardErrors, 409: ZError },
    summary: 'Invite a member',
    description:
      'E-mails a single-use link to /dashboard/invitations/<token>, valid 7 days, where the person sets a name and password or signs in with their account to join with the role. ' +
      'Inviting the same e-mail again replaces the link and the role; an e-mail that is a member already answers 409. ' +
      RULES,
    metadata: dashboardRoute('D53', ['D7', 'D41', 'D42', 'D49']),
  },
  update: {
    method: 'PATCH',
    path: '/v1/stores/:storeId/members/:userId',
    pathParams: z.object({
      storeId: ZId,
      userId: ZId.describe('The user id of a member, or the invitation id (`inv_…`) of a pending invitation'),
    }),
    body: ZMemberUpdate,
    responses: { 200: data(ZMember), ...dashboardErrors, 409: ZError },
    summary: "Change a member's role or notices",
    description:
      "`role`: the member's (or a pending invitation's) role; the member's staff tokens end (401) within a second. `notices`: the member's own merchant notices, " +
      "any role, for oneself only (another member's answers 403). For `role`: " +
      RULES,
    metadata: dashboardRoute('D53', ['D7', 'D13', 'D49']),
  },
  remove: {
    method: 'DELETE',
    path: '/v1/stores/:storeId/members/:userId',
    pathParams: z.object({
      storeId: ZId,
      userId: ZId.describe('The user id of a member, or the invitation id (`inv_…`) of a pending invitation'),
    }),
    responses: { 200: data(ZDeleted), ...dashboardErrors, 409: ZError },
    summary: 'Remove a member',
    description:
      'Removes the member (their staff tokens end, 401, within a second) or withdraws a pending invitation (its link then answers 404). ' +
      RULES,
    metadata: dashboardRoute('D53', ['D7', 'D13', 'D49']),
  },
});
