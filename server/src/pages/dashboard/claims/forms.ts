import { CLAIM_TRANSITIONS, DENY_REASONS } from '@protection-service/contract';
import type {
  TClaimApprove,
  TClaimDeny,
  TClaimItem,
  TClaimMessageWrite,
  TClaimNoteWrite,
  TClaimState,
  TClaimTransition,
  TResolutionType,
} from '@protection-service/sdk';
import { field } from '../forms';

/**
 * The claim page's forms (D50) and the API bodies made of their fields. Numbers the person
 * typed are sent as they are when they are not numbers, so the API refuses them in its own
 * words (D2) instead of the page guessing.
 */

/** Where each form of the claim page posts, under the claim's path. */
export const CLAIM_FORMS = ['approve', 'preview', 'decline', 'move', 'reply', 'note'] as const;
export type ClaimForm = (typeof CLAIM_FORMS)[number];

/** What the person chose for one item in the approve form. */
export interface ItemChoice {
  resolution: string;
  quantity: string;
  amount: string;
}

/** The approve form's fields of item `i` (`resolution_0`, `quantity_0`, `amount_0`, …). */
export function itemChoices(body: Record<string, unknown>, items: readonly TClaimItem[]): ItemChoice[] {
  return items.map((_, i) => ({
    resolution: field(body, `resolution_${i}`),
    quantity: field(body, `quantity_${i}`),
    amount: field(body, `amount_${i}`),
  }));
}

/** The fields the approve form starts with: the resolution the shopper asked for, the claimed quantity. */
export function defaultChoices(items: readonly TClaimItem[], requested: TResolutionType | null): ItemChoice[] {
  return items.map((item) => ({
    resolution: requested ?? 'REFUND',
    quantity: String(item.quantity),
    amount: '',
  }));
}

/** A typed number as a number; anything else as typed, for the API to refuse. */
function numberOr(raw: string): number | string {
  const n = Number(raw);
  return /^[0-9.eE+-]+$/.test(raw) && Number.isFinite(n) ? n : raw;
}

/** Approve's body (ZClaimApprove) from the form: one resolution per item. */
export function approveBody(choices: readonly ItemChoice[], items: readonly TClaimItem[]): TClaimApprove {
  const resolutions = choices.map((c, i) => {
    const itemId = items[i]?.itemId;
    // A value the select does not offer goes as sent: the API refuses it (D2).
    return {
      type: c.resolution as TResolutionType,
      ...(itemId ? { itemId } : {}),
      ...(c.quantity === '' ? {} : { quantity: numberOr(c.quantity) as number }),
      ...(c.amount === '' ? {} : { paidValue: numberOr(c.amount) as number }),
    };
  });
  return { resolutions };
}

/** D22's moves from `state` that the move form offers: approve and decline have forms of their own. */
export function moveTargets(state: TClaimState): TClaimState[] {
  return CLAIM_TRANSITIONS[state].filter((s) => s !== 'APPROVED' && s !== 'DENIED');
}

export const canApprove = (state: TClaimState): boolean => CLAIM_TRANSITIONS[state].includes('APPROVED');
export const canDecline = (state: TClaimState): boolean => CLAIM_TRANSITIONS[state].includes('DENIED');

/**
 * Decline's, move's, reply's and note's bodies (D22, D25, D51): what was chosen and typed. A
 * value the form does not offer goes as sent, for the API to refuse in its words (D2).
 */
export function declineBody(body: Record<string, unknown>): TClaimDeny {
  return { reason: field(body, 'reason') as TClaimDeny['reason'], details: field(body, 'details') || null };
}

export function moveBody(body: Record<string, unknown>): TClaimTransition {
  return { claimState: field(body, 'claimState') as TClaimTransition['claimState'] };
}

export function replyBody(body: Record<string, unknown>): TClaimMessageWrite {
  return { message: field(body, 'message'), senderType: 'brand' };
}

export function noteBody(body: Record<string, unknown>): TClaimNoteWrite {
  return { note: field(body, 'note') };
}

export { DENY_REASONS };
