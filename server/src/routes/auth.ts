import type { Contract } from '@protection-service/contract';
import type { GroupHandlers, RouteContext } from './index';

/** Dashboard login and refresh (D8). */
export function authHandlers(_ctx: RouteContext): GroupHandlers<Contract['auth']> {
  return {};
}
