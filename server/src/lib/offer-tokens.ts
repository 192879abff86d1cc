import { deriveKey, equalBytes, hmacSha256 } from './crypto';

/**
 * D55 offer tokens: what the shopper's quote showed, signed so that an order can carry it
 * back and the service can trust it. Shape: `<base64url of the JSON array of the fields>.
 * <base64url of the first 16 bytes of HMAC-SHA256>` under a key derived from SECRET_KEY for
 * offer tokens alone (a cursor or claim link never verifies as one). The fields hold the
 * UTC hour of issue, not the instant, so one quote asked again within the hour gives the
 * same token and the public answer stays cacheable; a token expires 7 days after that hour.
 */
export interface OfferFields {
  storeId: string;
  policyType: string;
  subtotal: number;
  currency: string;
  /** What the shopper pays (the quote's customer amount). */
  amount: number;
  ruleSetId: string;
  ruleId: string | null;
  widgetConfigId: string | null;
  /** ISO time of the widget config's last change, null without a config. */
  widgetConfigUpdatedAt: string | null;
  partnerApplicationId: string | null;
  partnerVariantKey: string | null;
  /** Hours since the epoch (UTC) when it was issued. */
  hour: number;
}

const HOUR_MS = 3_600_000;
const VALID_HOURS = 7 * 24;
const MAC_BYTES = 16;
const VERSION = 1;

/** Why a token is refused; each answers 400 naming the field (D55). */
export type OfferRefusal = 'forged' | 'store' | 'expired';

export function currentHour(now = Date.now()): number {
  return Math.floor(now / HOUR_MS);
}

export class OfferTokens {
  readonly #key: Buffer;

  constructor(secretKey: Buffer) {
    this.#key = deriveKey(secretKey, 'offer-token');
  }

  #mac(text: string): string {
    return hmacSha256(this.#key, text).subarray(0, MAC_BYTES).toString('base64url');
  }

  /** The token of these fields and when it expires (the hour's start plus 7 days). */
  issue(fields: OfferFields): { token: string; expiresAt: string } {
    const f = fields;
    const values = [
      VERSION,
      f.storeId,
      f.policyType,
      f.subtotal,
      f.currency,
      f.amount,
      f.ruleSetId,
      f.ruleId,
      f.widgetConfigId,
      f.widgetConfigUpdatedAt,
      f.partnerApplicationId,
      f.partnerVariantKey,
      f.hour,
    ];
    const text = Buffer.from(JSON.stringify(values)).toString('base64url');
    return {
      token: `${text}.${this.#mac(text)}`,
      expiresAt: new Date((f.hour + VALID_HOURS) * HOUR_MS).toISOString(),
    };
  }

  /**
   * The fields of a token this service issued for `storeId` that has not expired, else why
   * not. The MAC is checked first, so nothing of an unsigned token is read.
   */
  verify(token: string, storeId: string, now = Date.now()): OfferFields | OfferRefusal {
    const [text, mac, extra] = token.split('.');
    if (!text || !mac || extra !== undefined) return 'forged';
    if (!equalBytes(Buffer.from(mac), Buffer.from(this.#mac(text)))) return 'forged';
    const fields = parseFields(text);
    if (!fields) return 'forged';
    if (fields.storeId !== storeId) return 'store';
    if (now >= (fields.hour + VALID_HOURS) * HOUR_MS) return 'expired';
    return fields;
  }
}

const str = (v: unknown): v is string => typeof v === 'string';
const strOrNull = (v: unknown): v is string | null => v === null || typeof v === 'string';
const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

function parseFields(text: string): OfferFields | undefined {
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(v) || v.length !== 13 || v[0] !== VERSION) return undefined;
  const [, storeId, policyType, subtotal, currency, amount, ruleSetId, ruleId, wId, wAt, app, variant, hour] = v;
  if (!str(storeId) || !str(policyType) || !num(subtotal) || !str(currency) || !num(amount)) return undefined;
  if (!str(ruleSetId) || !strOrNull(ruleId) || !strOrNull(wId) || !strOrNull(wAt)) return undefined;
  if (!strOrNull(app) || !strOrNull(variant) || !num(hour)) return undefined;
  return {
    storeId,
    policyType,
    subtotal,
    currency,
    amount,
    ruleSetId,
    ruleId,
    widgetConfigId: wId,
    widgetConfigUpdatedAt: wAt,
    partnerApplicationId: app,
    partnerVariantKey: variant,
    hour,
  };
}
