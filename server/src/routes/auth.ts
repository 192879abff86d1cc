import type { Contract } from '@protection-service/contract';
import { changePassword, login, refresh } from '../domain/auth/dashboard';
import { dashboardUserOf } from '../http/caller';
import { Refusal } from '../lib/refusal';
import type { GroupHandlers, RouteContext } from './context';

/** Dashboard login and refresh (D8, D12), and the password (D49). Per-IP rate limits are the gate's (D4). */
export function authHandlers({ db, auth }: RouteContext): GroupHandlers<Contract['auth']> {
  return {
    async login({ body }) {
      return { status: 200, body: { data: await login(db, auth.keys, body.email, body.password) } };
    },
    async refresh({ body }) {
      try {
        return { status: 200, body: { data: await refresh(db, auth.keys, body.refreshToken) } };
      } catch (err) {
        // A replay has just revoked the family (D12): applied here before answering.
        if (err instanceof Refusal) await auth.revocations.refresh();
        throw err;
      }
    },
    async changePassword({ body, req }) {
      await changePassword(db, dashboardUserOf(req), body);
      // D13: the other sessions' tokens fail in this process before it answers.
      await auth.revocations.refresh();
      return { status: 200, body: { data: { ok: true as const } } };
    },
  };
}
