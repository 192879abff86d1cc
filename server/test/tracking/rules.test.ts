import { describe, expect, it } from 'vitest';
import {
  CLAIM_TYPE_OF_RULE,
  DEFAULT_TRACKING_SETTINGS,
  evaluatePackage,
  type RuleInput,
  type TrackingSettings,
} from '../../src/domain/tracking/rules';
import { type PackageState, packageState } from '../../src/domain/tracking/state';
import type { TrackingStatus } from '../../src/domain/tracking/vocabulary';

const DAY = 86_400_000;
const SHIPPED = new Date('2026-11-02T10:00:00Z');
const day = (n: number) => new Date(SHIPPED.getTime() + n * DAY);

/** A package scanned on days 0..lastScan, last seen as `status`. */
function scanned(
  lastScan: number,
  status: TrackingStatus = 'in_transit',
  subStatus: string | null = null,
): PackageState {
  const events = Array.from({ length: lastScan + 1 }, (_, n) => ({
    occurredAt: day(n),
    status: n === lastScan ? status : 'in_transit',
    subStatus: n === lastScan ? subStatus : null,
    isCarrierScan: true,
    eventKey: `e${n}`,
  }));
  return packageState(events);
}

function input(
  overrides: Partial<Omit<RuleInput, 'settings'>> & { settings?: Partial<TrackingSettings> } = {},
): RuleInput {
  const { settings, ...rest } = overrides;
  return {
    state: scanned(2),
    estimatedDeliveryAt: day(5),
    asOf: day(3),
    hasActivePolicy: true,
    hasClaimableItems: true,
    existingClaim: null,
    ...rest,
    settings: { ...DEFAULT_TRACKING_SETTINGS, mode: 'file', ...settings },
  };
}

describe('tracking settings (D54)', () => {
  it('defaults to off, 7 days without a scan, 2 past the estimate, delay off at 1, a 45-day window, a refund', () => {
    expect(DEFAULT_TRACKING_SETTINGS).toEqual({
      mode: 'off',
      lostNoMovementDays: 7,
      lostAfterEstimatedDays: 2,
      delayedEnabled: false,
      delayedAfterEstimatedDays: 1,
      claimWindowDays: 45,
      resolutionRequested: 'REFUND',
    });
    expect(CLAIM_TYPE_OF_RULE).toEqual({ lost: 'LOST_IN_TRANSIT', delayed: 'DELAYED', returned: 'RETURNED_TO_SENDER' });
  });
});

describe('evaluatePackage: which rule fires as asOf moves (D54)', () => {
  it('skips everything when the store has the rules off', () => {
    const decision = evaluatePackage(input({ state: scanned(1, 'lost'), settings: { mode: 'off' } }));
    expect(decision).toEqual({ rule: null, action: 'skipped', reason: 'tracking rules are off for the store' });
  });

  it('fires nothing while a package moves and is not late, then lost once no scan came for 7 days', () => {
    const state = scanned(2);
    const estimatedDeliveryAt = day(30);
    expect(evaluatePackage(input({ state, estimatedDeliveryAt, asOf: day(8) }))).toMatchObject({
      rule: null,
      action: 'skipped',
      reason: expect.stringMatching(/^no rule fired: in_transit, last carrier scan 2026-11-04T10:00:00\.000Z/),
    });
    expect(
      evaluatePackage(input({ state, estimatedDeliveryAt, asOf: new Date(day(9).getTime() - 1) })).rule,
    ).toBeNull();
    expect(evaluatePackage(input({ state, estimatedDeliveryAt, asOf: day(9) }))).toEqual({
      rule: 'lost',
      action: 'filed',
      reason: 'no carrier scan for 7 days since 2026-11-04T10:00:00.000Z (lost after 7)',
    });
  });

  it('fires lost 2 days past the estimated delivery, the scans notwithstanding', () => {
    const state = scanned(6);
    expect(evaluatePackage(input({ state, estimatedDeliveryAt: day(5), asOf: day(6.5) })).rule).toBeNull();
    expect(evaluatePackage(input({ state, estimatedDeliveryAt: day(5), asOf: day(7) }))).toEqual({
      rule: 'lost',
      action: 'filed',
      reason: 'not delivered 2 days after the estimated delivery 2026-11-07T10:00:00.000Z (lost after 2)',
    });
  });

  it('fires delayed 1 day past the estimate only when enabled, and lost still wins after 2', () => {
    const state = scanned(5);
    const at = { state, estimatedDeliveryAt: day(5), asOf: day(6) };
    expect(evaluatePackage(input(at)).rule).toBeNull();
    expect(evaluatePackage(input({ ...at, settings: { delayedEnabled: true } }))).toEqual({
      rule: 'delayed',
      action: 'filed',
      reason: 'not delivered 1 day after the estimated delivery 2026-11-07T10:00:00.000Z (delayed after 1)',
    });
    expect(evaluatePackage(input({ ...at, asOf: day(7), settings: { delayedEnabled: true } })).rule).toBe('lost');
  });

  it('fires lost and returned as the carrier says, at once', () => {
    expect(evaluatePackage(input({ state: scanned(2, 'lost', 'lost') }))).toEqual({
      rule: 'lost',
      action: 'filed',
      reason: 'the carrier reports the package lost (2026-11-04T10:00:00.000Z)',
    });
    expect(evaluatePackage(input({ state: scanned(2, 'return_to_sender', 'returned') }))).toEqual({
      rule: 'returned',
      action: 'filed',
      reason: 'the carrier returns the package to the sender (since 2026-11-04T10:00:00.000Z)',
    });
  });

  it('fires nothing for a delivered package, however late or quiet', () => {
    expect(evaluatePackage(input({ state: scanned(2, 'delivered'), asOf: day(40) }))).toEqual({
      rule: null,
      action: 'skipped',
      reason: 'no rule fired: the package was delivered (2026-11-04T10:00:00.000Z)',
    });
  });

  it('notifies instead of filing in notify mode', () => {
    const decision = evaluatePackage(input({ state: scanned(2, 'lost'), settings: { mode: 'notify' } }));
    expect(decision).toMatchObject({ rule: 'lost', action: 'notified' });
  });
});

describe('evaluatePackage: why a fired rule files nothing (D54)', () => {
  const lost = scanned(2, 'lost', 'lost');

  it('escalates when the package already has the claim these rules filed, never files again', () => {
    const decision = evaluatePackage(input({ state: lost, existingClaim: { id: 'clm_1', byTracking: true } }));
    expect(decision).toEqual({
      rule: 'lost',
      action: 'escalated',
      reason:
        'the carrier reports the package lost (2026-11-04T10:00:00.000Z); the package already has its claim clm_1',
    });
    const notify = input({
      state: lost,
      existingClaim: { id: 'clm_1', byTracking: true },
      settings: { mode: 'notify' },
    });
    expect(evaluatePackage(notify).action).toBe('escalated');
  });

  it("skips a package a shopper's claim already names", () => {
    const decision = evaluatePackage(input({ state: lost, existingClaim: { id: 'clm_2', byTracking: false } }));
    expect(decision).toEqual({
      rule: 'lost',
      action: 'skipped',
      reason: "the shopper's claim clm_2 already names the package",
    });
  });

  it('skips an order without an active protection policy', () => {
    expect(evaluatePackage(input({ state: lost, hasActivePolicy: false }))).toMatchObject({
      rule: 'lost',
      action: 'skipped',
      reason: expect.stringMatching(/^the order has no active protection policy; the carrier reports/),
    });
  });

  it('skips a package no carrier ever scanned, late as it is', () => {
    const labelOnly = packageState([
      { occurredAt: day(0), status: 'pre_transit', subStatus: null, isCarrierScan: false, eventKey: 'label' },
    ]);
    expect(evaluatePackage(input({ state: labelOnly, estimatedDeliveryAt: day(3), asOf: day(10) }))).toMatchObject({
      rule: 'lost',
      action: 'skipped',
      reason: expect.stringMatching(/^no carrier scan seen, so the package never shipped; not delivered 7 days after/),
    });
  });

  it('skips once the claim window from the first carrier scan has passed', () => {
    const inside = evaluatePackage(input({ state: lost, asOf: day(45) }));
    expect(inside.action).toBe('filed');
    expect(evaluatePackage(input({ state: lost, asOf: day(45.5) }))).toMatchObject({
      rule: 'lost',
      action: 'skipped',
      reason: expect.stringMatching(
        /^outside the claim window: shipped 45 days ago \(2026-11-02T10:00:00\.000Z\), the window is 45 days; /,
      ),
    });
    expect(evaluatePackage(input({ state: lost, asOf: day(50), settings: { claimWindowDays: 60 } })).action).toBe(
      'filed',
    );
  });

  it('skips when nothing is left to claim on the fulfillment (D39)', () => {
    expect(evaluatePackage(input({ state: lost, hasClaimableItems: false }))).toMatchObject({
      rule: 'lost',
      action: 'skipped',
      reason: expect.stringMatching(/^nothing left to claim on the fulfillment; /),
    });
  });

  it('reads time only from asOf: the same input gives the same decision', () => {
    const same = input({ state: scanned(2), asOf: day(9) });
    expect(evaluatePackage(same)).toEqual(evaluatePackage(structuredClone(same)));
  });
});
