import type { Contract } from '@protection-service/contract';
import type { GroupHandlers, RouteContext } from './index';

/** App registration and secret rotation (D9). */
export function appHandlers(_ctx: RouteContext): GroupHandlers<Contract['apps']> {
  return {};
}
