import type { Contract } from '@protection-service/contract';
import { refuse } from '../lib/refusal';
import type { GroupHandlers, RouteContext } from './context';

/** D54: one answer for an unknown source and a bad signature. */
const INBOUND_REFUSED = 'unknown tracking source or invalid signature';
const NOT_YET = () => Promise.reject(refuse.notImplemented('shipment tracking is not available yet'));

/** Shipment tracking (D54). */
export function trackingHandlers(_deps: RouteContext): GroupHandlers<Contract['tracking']> {
  return {
    addEvents: NOT_YET,
    get: NOT_YET,
    // D54: no source can be registered yet, so every delivery is an unknown source's.
    receiveInbound: () => Promise.reject(refuse.unauthorized(INBOUND_REFUSED)),
    createSource: NOT_YET,
    listSources: NOT_YET,
    removeSource: NOT_YET,
    getSettings: NOT_YET,
    updateSettings: NOT_YET,
    readSettings: NOT_YET,
  };
}
