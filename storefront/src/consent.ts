/**
 * D55's consent rule: when the protection box may start checked. Only when the merchant's
 * quote says to add it automatically, the shopper's country is known, neither the country
 * nor the region is on the quote's block lists, and the country is not one where the law
 * says a pre-ticked box is no consent. That last list is code, not a setting: no merchant or
 * cohort can turn it off.
 */

/**
 * The EU's 27 states, the other EEA states (Iceland, Liechtenstein, Norway) and the United
 * Kingdom: the Consumer Rights Directive, art. 22, and the UK's rule after it. `EL` and `UK`
 * are the EU's own spellings of Greece and the United Kingdom.
 */
export const NO_PRETICK_COUNTRIES: ReadonlySet<string> = new Set(
  ('AT BE BG HR CY CZ DK EE FI FR DE GR EL HU IE IT LV LT LU MT NL PL PT RO SK SI ES SE ' + 'IS LI NO GB UK').split(
    ' ',
  ),
);

export interface ConsentQuote {
  automaticallyAddToCart: boolean;
  autoAddCountryBlockList: readonly string[];
  autoAddStateBlockList: readonly string[];
}

/** A region as the block list writes it: `NY` for `US-NY` or `ny`. */
function regionCode(region: string): string {
  const code = region.trim().toUpperCase();
  const dash = code.indexOf('-');
  return dash === -1 ? code : code.slice(dash + 1);
}

const upper = (list: readonly string[]) => list.map((c) => c.trim().toUpperCase());

/** Whether the box starts checked (D55); a missing or empty `country` means unchecked. */
export function startsChecked(quote: ConsentQuote, country?: string | null, region?: string | null): boolean {
  if (!quote.automaticallyAddToCart) return false;
  const c = (country ?? '').trim().toUpperCase();
  if (c === '') return false;
  if (NO_PRETICK_COUNTRIES.has(c)) return false;
  if (upper(quote.autoAddCountryBlockList).includes(c)) return false;
  if (region && upper(quote.autoAddStateBlockList).includes(regionCode(region))) return false;
  return true;
}
