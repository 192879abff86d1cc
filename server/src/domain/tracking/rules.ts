import type { TResolutionType } from '@protection-service/contract';
import type { PackageState } from './state';

/** A store's tracking rules (D54). */
export interface TrackingSettings {
  mode: 'off' | 'notify' | 'file';
  lostNoMovementDays: number;
  lostAfterEstimatedDays: number;
  delayedEnabled: boolean;
  delayedAfterEstimatedDays: number;
  claimWindowDays: number;
  resolutionRequested: TResolutionType;
}

/**
 * D54's defaults. The claim asks for a refund: the service files it without the shopper, and
 * a refund is the one resolution that never depends on stock or a new address; the merchant
 * still decides when resolving.
 */
export const DEFAULT_TRACKING_SETTINGS: TrackingSettings = Object.freeze({
  mode: 'off',
  lostNoMovementDays: 7,
  lostAfterEstimatedDays: 2,
  delayedEnabled: false,
  delayedAfterEstimatedDays: 1,
  claimWindowDays: 45,
  resolutionRequested: 'REFUND',
});

export type TrackingRule = 'lost' | 'delayed' | 'returned';

/** The claim type a rule files (D54; LOST_IN_TRANSIT and DELAYED from version 2027-01-15, D44). */
export const CLAIM_TYPE_OF_RULE = Object.freeze({
  lost: 'LOST_IN_TRANSIT',
  delayed: 'DELAYED',
  returned: 'RETURNED_TO_SENDER',
} as const satisfies Record<TrackingRule, string>);

export interface RuleInput {
  state: PackageState;
  estimatedDeliveryAt: Date | null;
  settings: TrackingSettings;
  /** The time the rules run as of: never the clock (test mode moves it, D54). */
  asOf: Date;
  hasActivePolicy: boolean;
  /** Whether the fulfillment's items have a claimable quantity left (D39). */
  hasClaimableItems: boolean;
  /** A claim that already names the package: filed by these rules (`byTracking`) or by the shopper. */
  existingClaim: { id: string; byTracking: boolean } | null;
}

/** One evaluation's outcome, recorded with its reason (D54): "why was (or wasn't) a claim opened?". */
export interface Decision {
  rule: TrackingRule | null;
  action: 'filed' | 'notified' | 'skipped' | 'escalated';
  reason: string;
}

const DAY_MS = 86_400_000;

function daysBetween(from: Date, to: Date): number {
  return (to.getTime() - from.getTime()) / DAY_MS;
}

/** Whole days, as a reason states them. */
function wholeDays(days: number): string {
  const whole = Math.floor(days);
  return `${whole} day${whole === 1 ? '' : 's'}`;
}

type Fired = { rule: TrackingRule; evidence: string } | { rule: null; evidence: string };

/**
 * The rule a package meets as of `asOf`, with the evidence: returned and lost as the carrier
 * says; lost after too long without a carrier scan or too long past the estimate; delayed
 * (when enabled) past the estimate. The gravest rule wins.
 */
export function firedRule(
  state: PackageState,
  estimatedDeliveryAt: Date | null,
  settings: TrackingSettings,
  asOf: Date,
): Fired {
  const since = state.statusAt?.toISOString() ?? 'an unknown time';
  if (state.status === 'return_to_sender') {
    return { rule: 'returned', evidence: `the carrier returns the package to the sender (since ${since})` };
  }
  if (state.status === 'lost') return { rule: 'lost', evidence: `the carrier reports the package lost (${since})` };
  if (state.status === 'delivered') return { rule: null, evidence: `the package was delivered (${since})` };
  const quiet = state.lastScanAt ? daysBetween(state.lastScanAt, asOf) : null;
  if (quiet !== null && quiet >= settings.lostNoMovementDays) {
    return {
      rule: 'lost',
      evidence: `no carrier scan for ${wholeDays(quiet)} since ${state.lastScanAt?.toISOString()} (lost after ${settings.lostNoMovementDays})`,
    };
  }
  const late = estimatedDeliveryAt ? daysBetween(estimatedDeliveryAt, asOf) : null;
  const estimate = estimatedDeliveryAt?.toISOString();
  if (late !== null && late >= settings.lostAfterEstimatedDays) {
    return {
      rule: 'lost',
      evidence: `not delivered ${wholeDays(late)} after the estimated delivery ${estimate} (lost after ${settings.lostAfterEstimatedDays})`,
    };
  }
  if (settings.delayedEnabled && late !== null && late >= settings.delayedAfterEstimatedDays) {
    return {
      rule: 'delayed',
      evidence: `not delivered ${wholeDays(late)} after the estimated delivery ${estimate} (delayed after ${settings.delayedAfterEstimatedDays})`,
    };
  }
  const scan = state.lastScanAt ? `last carrier scan ${state.lastScanAt.toISOString()}` : 'no carrier scan yet';
  return {
    rule: null,
    evidence: `${state.status}, ${scan}, estimated delivery ${estimate ?? 'unknown'}`,
  };
}

/** Why a fired rule files nothing, or null when a claim may be filed (D54, D39). */
function eligibilityBlock(input: RuleInput): string | null {
  const { state, settings, asOf } = input;
  if (!input.hasActivePolicy) return 'the order has no active protection policy';
  if (!state.shippedAt) return 'no carrier scan seen, so the package never shipped';
  const sinceShipping = daysBetween(state.shippedAt, asOf);
  if (sinceShipping > settings.claimWindowDays) {
    return `outside the claim window: shipped ${wholeDays(sinceShipping)} ago (${state.shippedAt.toISOString()}), the window is ${settings.claimWindowDays} days`;
  }
  if (!input.hasClaimableItems) return 'nothing left to claim on the fulfillment';
  return null;
}

/**
 * D54: what to do about a package as of `asOf`, a pure function of its state, the store's
 * settings and the claims naming it. `filed` asks the caller to file the claim now; a package
 * that already has its claim escalates, never files twice; one a shopper's claim names gets none.
 */
export function evaluatePackage(input: RuleInput): Decision {
  if (input.settings.mode === 'off')
    return { rule: null, action: 'skipped', reason: 'tracking rules are off for the store' };
  const fired = firedRule(input.state, input.estimatedDeliveryAt, input.settings, input.asOf);
  if (!fired.rule) return { rule: null, action: 'skipped', reason: `no rule fired: ${fired.evidence}` };
  const { rule, evidence } = fired;
  const claim = input.existingClaim;
  if (claim?.byTracking) {
    return { rule, action: 'escalated', reason: `${evidence}; the package already has its claim ${claim.id}` };
  }
  if (claim) return { rule, action: 'skipped', reason: `the shopper's claim ${claim.id} already names the package` };
  const block = eligibilityBlock(input);
  if (block) return { rule, action: 'skipped', reason: `${block}; ${evidence}` };
  return { rule, action: input.settings.mode === 'file' ? 'filed' : 'notified', reason: evidence };
}
