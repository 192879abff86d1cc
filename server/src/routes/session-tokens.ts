import type { Contract } from '@protection-service/contract';
import { verifySessionToken } from '../domain/auth/session-tokens';
import type { GroupHandlers, RouteContext } from './context';

/** POST /v1/oauth/session/verify (D15); the rest of the oauth group is in oauth.ts. */
export function sessionTokenHandlers({
  db,
  config,
}: RouteContext): Pick<GroupHandlers<Contract['oauth']>, 'sessionVerify'> {
  const settings = { secretKey: config.secretKey, issuer: config.publicBaseUrl };
  return {
    async sessionVerify({ body }) {
      return { status: 200, body: await verifySessionToken(db, settings, body.session_token) };
    },
  };
}
