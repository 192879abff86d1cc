import type { TRole as Role } from '@protection-service/sdk';
import { field } from '../forms';

/** The team's forms as the API's bodies (D53): what was typed and chosen, nothing more. */

export function inviteBody(body: Record<string, unknown>): { email: string; role: Role } {
  return { email: field(body, 'email'), role: field(body, 'role') as Role };
}

export function roleBody(body: Record<string, unknown>): { role: Role } {
  return { role: field(body, 'role') as Role };
}

/** Unchecked boxes are not sent: an absent notice is off. */
export function noticesBody(body: Record<string, unknown>): {
  notices: { claimFiled: boolean; shopperReplied: boolean };
} {
  return { notices: { claimFiled: body.claimFiled === 'on', shopperReplied: body.shopperReplied === 'on' } };
}
