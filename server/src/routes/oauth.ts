import type { Contract } from '@protection-service/contract';
import type { GroupHandlers, RouteContext } from './index';

/** Token, revoke, authorize/approve and discovery (D10-D13, D17). */
export function oauthHandlers(_ctx: RouteContext): Omit<GroupHandlers<Contract['oauth']>, 'sessionVerify'> {
  return {};
}
