import type { Contract } from '@protection-service/contract';
import type { GroupHandlers, RouteContext } from './index';

/** Installations (D14) and session-token minting (D15). */
export function storeHandlers(_ctx: RouteContext): GroupHandlers<Contract['stores']> {
  return {};
}
