import type { Contract } from '@protection-service/contract';
import type { GroupHandlers, RouteContext } from './index';

/** Merchant settings and partner contexts. */
export function settingsHandlers(_ctx: RouteContext): GroupHandlers<Contract['settings']> {
  return {};
}
