import type { Contract } from '@protection-service/contract';
import type { GroupHandlers, RouteContext } from './index';

/** POST /v1/oauth/session/verify (D15); the rest of the oauth group is in oauth.ts. */
export function sessionHandlers(_ctx: RouteContext): Pick<GroupHandlers<Contract['oauth']>, 'sessionVerify'> {
  return {};
}
