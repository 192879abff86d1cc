import { FULFILLMENT_STATUSES } from '@protection-service/contract';
import { describe, expect, it } from 'vitest';
import {
  eventKeyOf,
  FINAL_STATUSES,
  statusFromFulfillmentStatus,
  TRACKING_STATUSES,
} from '../../src/domain/tracking/vocabulary';

describe('statusFromFulfillmentStatus (D54, the vocabulary table)', () => {
  it('maps each of the 18 fulfillment statuses, and says nothing for those that do not place the package', () => {
    const mapped = Object.fromEntries(FULFILLMENT_STATUSES.map((value) => [value, statusFromFulfillmentStatus(value)]));
    expect(mapped).toEqual({
      DELIVERED: { status: 'delivered', subStatus: null },
      FULFILLED: null,
      UNFULFILLED: null,
      PARTIALLY_FULFILLED: null,
      AWAITING_SHIPMENT: null,
      SCHEDULED: null,
      ON_HOLD: null,
      ATTEMPTED_DELIVERY: { status: 'exception', subStatus: 'attempted_delivery' },
      CARRIER_PICKED_UP: { status: 'in_transit', subStatus: 'carrier_picked_up' },
      CONFIRMED: { status: 'pre_transit', subStatus: 'confirmed' },
      DELAYED: { status: 'in_transit', subStatus: 'delayed' },
      FAILURE: { status: 'exception', subStatus: 'failure' },
      IN_TRANSIT: { status: 'in_transit', subStatus: null },
      LABEL_PRINTED: { status: 'pre_transit', subStatus: 'label_printed' },
      LABEL_PURCHASED: { status: 'pre_transit', subStatus: 'label_purchased' },
      OUT_FOR_DELIVERY: { status: 'out_for_delivery', subStatus: null },
      PICKED_UP: { status: 'delivered', subStatus: 'picked_up' },
      READY_FOR_PICKUP: { status: 'available_for_pickup', subStatus: null },
    });
  });

  it('says nothing for a value it does not know, inherited names included', () => {
    for (const value of ['', 'delivered', 'RETURNING_TO_SENDER', 'toString', '__proto__']) {
      expect(statusFromFulfillmentStatus(value)).toBeNull();
    }
  });

  it('hands out a copy: changing an answer changes no later one', () => {
    const first = statusFromFulfillmentStatus('DELIVERED')!;
    first.status = 'lost';
    expect(statusFromFulfillmentStatus('DELIVERED')).toEqual({ status: 'delivered', subStatus: null });
  });
});

describe('vocabulary', () => {
  it('has delivered, lost and return_to_sender as its final statuses', () => {
    expect([...FINAL_STATUSES].sort()).toEqual(['delivered', 'lost', 'return_to_sender']);
    expect(TRACKING_STATUSES).toHaveLength(9);
  });

  it('keys an event without an id by what it says', () => {
    const at = new Date('2026-11-20T10:00:00Z');
    const key = eventKeyOf('1Z', at, 'InTransit', 'Arrived');
    expect(key).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(eventKeyOf('1Z', new Date(at), 'InTransit', 'Arrived')).toBe(key);
    expect(eventKeyOf('1Z', at, 'InTransit', 'Departed')).not.toBe(key);
    expect(eventKeyOf('1Z', at, null, 'Arrived')).not.toBe(key);
    expect(eventKeyOf('1Y', at, 'InTransit', 'Arrived')).not.toBe(key);
  });
});
