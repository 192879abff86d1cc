import type { Contract } from '@protection-service/contract';
import { verifySessionToken } from '../domain/auth/session-tokens';
import { HttpError } from '../http/errors';
import type { GroupHandlers, RouteContext } from './context';

/** POST /v1/oauth/session/verify (D15); the rest of the oauth group is in oauth.ts. */
export function sessionHandlers({ db, config }: RouteContext): Pick<GroupHandlers<Contract['oauth']>, 'sessionVerify'> {
  const settings = { secretKey: config.secretKey, issuer: config.publicBaseUrl };
  return {
    async sessionVerify({ body }) {
      const session = await verifySessionToken(db, settings, body.session_token);
      // Every failure alike: the caller learns nothing about which check failed (D15).
      if (!session) throw new HttpError(401, 'Unauthorized');
      return { status: 200, body: session };
    },
  };
}
