import type { Contract } from '@protection-service/contract';
import { inviteMember, listMembers, removeMember, updateMember } from '../domain/team/members';
import { dashboardUserOf } from '../http/caller';
import type { GroupHandlers, RouteContext } from './context';

/**
 * A store's team (D53), for the dashboard user who is a member of it: the domain answers
 * another store exactly as a missing one (D7) and checks the roles (D49).
 */
export function memberHandlers({ db, auth }: RouteContext): GroupHandlers<Contract['members']> {
  return {
    async list({ params, req }) {
      const { userId } = dashboardUserOf(req);
      return { status: 200, body: { data: await listMembers(db, userId, params.storeId) } };
    },
    async invite({ params, body, req }) {
      const { userId } = dashboardUserOf(req);
      return { status: 201, body: { data: await inviteMember(db, userId, params.storeId, body) } };
    },
    async update({ params, body, req }) {
      const { userId } = dashboardUserOf(req);
      const member = await updateMember(db, userId, params.storeId, params.userId, body);
      // D13, D49: the member's staff tokens of the old role fail here before this answers.
      if (body.role !== undefined) await auth.revocations.refresh();
      return { status: 200, body: { data: member } };
    },
    async remove({ params, req }) {
      const { userId } = dashboardUserOf(req);
      await removeMember(db, userId, params.storeId, params.userId);
      await auth.revocations.refresh();
      return { status: 200, body: { data: { ok: true as const } } };
    },
  };
}
