import type { Contract } from '@protection-service/contract';
import { login, refresh } from '../domain/auth/dashboard';
import { HttpError } from '../http/errors';
import type { GroupHandlers, RouteContext } from './context';

/** One message for an unknown e-mail and a wrong password alike (D8). */
const LOGIN_FAILED = 'invalid e-mail or password';

/** Dashboard login and refresh (D8, D12). Per-IP rate limits are the gate's (D4). */
export function authHandlers({ db, auth }: RouteContext): GroupHandlers<Contract['auth']> {
  return {
    async login({ body }) {
      const answer = await login(db, auth.keys, body.email, body.password);
      if (!answer) throw new HttpError(401, LOGIN_FAILED);
      return { status: 200, body: { data: answer } };
    },
    async refresh({ body }) {
      const tokens = await refresh(db, auth.keys, body.refreshToken);
      if (!tokens) {
        // A replay has just revoked the family (D12): applied here before answering.
        await auth.revocations.refresh();
        // Unknown, expired, revoked or replayed: one answer (D12).
        throw new HttpError(401, 'invalid, expired or revoked refresh token');
      }
      return { status: 200, body: { data: tokens } };
    },
  };
}
