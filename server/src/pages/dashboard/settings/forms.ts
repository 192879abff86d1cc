import { ISSUE_TYPES } from '@protection-service/contract';
import type { TMerchantSettingsUpdate, TTrackingSettingsUpdate, TTrackingSourceCreate } from '@protection-service/sdk';
import { field, fields } from '../forms';

/** The settings page's forms as the API's bodies (D50, D53, D54): what was typed and chosen; the API judges the values. */

/** A typed number as a number, an empty field as undefined (kept as it is); not a number reaches the API as null, refused there. */
function numberOf(body: Record<string, unknown>, name: string): number | undefined {
  const value = field(body, name);
  return value === '' ? undefined : Number(value);
}

/** The store's yes-or-no defaults, each with its label. */
export const BOOLEANS = [
  ['enableCancelAfterPurchase', 'Shoppers may cancel protection after purchase'],
  ['sendConfirmationEmail', 'Send a confirmation e-mail'],
  ['sendSmsUpdates', 'Send text message updates'],
  ['offerStoreCreditOnServicePurchase', 'Offer store credit as a resolution'],
] as const;

/** The defaults form as a PATCH body: every field, numbers as numbers. */
export function settingsBody(body: Record<string, unknown>): TMerchantSettingsUpdate {
  const number = (name: string) => numberOf(body, name);
  const change: Record<string, unknown> = {
    cancelAfterPurchaseDurationSeconds: number('cancelAfterPurchaseDurationSeconds'),
    storeCreditType: field(body, 'storeCreditType') || undefined,
    storeCreditBonus: number('storeCreditBonus'),
    storeCreditBonusType: field(body, 'storeCreditBonusType') || undefined,
    storeCreditMaxPercentage: number('storeCreditMaxPercentage'),
  };
  for (const [name] of BOOLEANS) change[name] = field(body, name) === 'on';
  change.photosRequiredFor = ISSUE_TYPES.filter((type) => fields(body, 'photosRequiredFor').includes(type));
  return change as TMerchantSettingsUpdate;
}

/** The rules form as a PUT body: an empty number keeps its value, the API judges the rest. */
export function rulesBody(body: Record<string, unknown>): TTrackingSettingsUpdate {
  const days = (name: string) => numberOf(body, name);
  const change: Record<string, unknown> = {
    mode: field(body, 'mode') || undefined,
    lostNoMovementDays: days('lostNoMovementDays'),
    lostAfterEstimatedDays: days('lostAfterEstimatedDays'),
    delayedEnabled: field(body, 'delayedEnabled') === 'on',
    delayedAfterEstimatedDays: days('delayedAfterEstimatedDays'),
    claimWindowDays: days('claimWindowDays'),
    resolutionRequested: field(body, 'resolutionRequested') || undefined,
  };
  return change as TTrackingSettingsUpdate;
}

/** "Add source": the provider chosen, and the secret when one was typed (else the service makes one, D54). */
export function sourceBody(body: Record<string, unknown>): TTrackingSourceCreate {
  const secret = field(body, 'secret');
  return { provider: field(body, 'provider'), ...(secret ? { secret } : {}) } as TTrackingSourceCreate;
}
