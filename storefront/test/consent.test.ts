import { describe, expect, it } from 'vitest';
import { NO_PRETICK_COUNTRIES, startsChecked } from '../src/consent';

/** D55's consent rule, case by case. */
describe('the box starts checked only where consent allows it (D55)', () => {
  const auto = { automaticallyAddToCart: true, autoAddCountryBlockList: [], autoAddStateBlockList: [] };

  it('starts checked with automaticallyAddToCart, a country given, nothing blocked, outside the EU/EEA/UK', () => {
    expect(startsChecked(auto, 'US', 'CA')).toBe(true);
    expect(startsChecked(auto, 'us')).toBe(true);
  });

  it('starts unchecked when the quote does not add it automatically', () => {
    expect(startsChecked({ ...auto, automaticallyAddToCart: false }, 'US', 'CA')).toBe(false);
  });

  it('starts unchecked when the country is missing or empty, whatever the quote says', () => {
    expect(startsChecked(auto)).toBe(false);
    expect(startsChecked(auto, null, 'CA')).toBe(false);
    expect(startsChecked(auto, '  ')).toBe(false);
  });

  it('starts unchecked for a country on the block list', () => {
    expect(startsChecked({ ...auto, autoAddCountryBlockList: ['ca'] }, 'CA')).toBe(false);
    expect(startsChecked({ ...auto, autoAddCountryBlockList: ['CA'] }, 'US')).toBe(true);
  });

  it('starts unchecked for a region on the block list, written as the list writes it (NY) or as ISO (US-NY)', () => {
    const blocked = { ...auto, autoAddStateBlockList: ['NY'] };
    expect(startsChecked(blocked, 'US', 'NY')).toBe(false);
    expect(startsChecked(blocked, 'US', 'US-NY')).toBe(false);
    expect(startsChecked(blocked, 'US', 'ny')).toBe(false);
    expect(startsChecked(blocked, 'US', 'NJ')).toBe(true);
  });

  it('starts unchecked in every EU and EEA state and the United Kingdom, which no setting overrides', () => {
    const eu = 'AT BE BG HR CY CZ DK EE FI FR DE GR HU IE IT LV LT LU MT NL PL PT RO SK SI ES SE'.split(' ');
    expect(eu).toHaveLength(27);
    for (const country of [...eu, 'IS', 'LI', 'NO', 'GB']) {
      expect(NO_PRETICK_COUNTRIES.has(country), country).toBe(true);
      expect(startsChecked(auto, country), country).toBe(false);
      expect(startsChecked(auto, country.toLowerCase()), country).toBe(false);
    }
    // Outside: Switzerland is neither EU nor EEA.
    expect(startsChecked(auto, 'CH')).toBe(true);
  });
});
