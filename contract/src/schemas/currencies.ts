/**
 * ISO 4217 alphabetic codes and their minor units (D6: amounts are rounded half-up to the
 * currency's minor units, 2 when the currency is absent or unknown).
 *
 * The spec accepts current and withdrawn codes alike ("current and withdrawn codes are
 * accepted"), so the table holds ISO 4217 list one (current codes, including fund codes such
 * as BOV, CLF, COU, MXV, UYI, UYW) and the well-known codes of list three (withdrawn), the
 * latter with their historical minor units (2 where the historical value is uncertain).
 * Codes whose minor unit ISO gives as "N.A." (precious metals, SDR, test and no-currency
 * codes) get 2, the D6 fallback.
 */

/** ISO 4217 list one (current codes), as of the 2024-2025 amendments. */
// biome-ignore format: a compact table
const CURRENT: Readonly<Record<string, number>> = {
  AED: 2, AFN: 2, ALL: 2, AMD: 2, ANG: 2, AOA: 2, ARS: 2, AUD: 2, AWG: 2, AZN: 2,
  BAM: 2, BBD: 2, BDT: 2, BGN: 2, BHD: 3, BIF: 0, BMD: 2, BND: 2, BOB: 2, BOV: 2,
  BRL: 2, BSD: 2, BTN: 2, BWP: 2, BYN: 2, BZD: 2,
  CAD: 2, CDF: 2, CHE: 2, CHF: 2, CHW: 2, CLF: 4, CLP: 0, CNY: 2, COP: 2, COU: 2,
  CRC: 2, CUC: 2, CUP: 2, CVE: 2, CZK: 2,
  DJF: 0, DKK: 2, DOP: 2, DZD: 2,
  EGP: 2, ERN: 2, ETB: 2, EUR: 2,
  FJD: 2, FKP: 2,
  GBP: 2, GEL: 2, GHS: 2, GIP: 2, GMD: 2, GNF: 0, GTQ: 2, GYD: 2,
  HKD: 2, HNL: 2, HTG: 2, HUF: 2,
  IDR: 2, ILS: 2, INR: 2, IQD: 3, IRR: 2, ISK: 0,
  JMD: 2, JOD: 3, JPY: 0,
  KES: 2, KGS: 2, KHR: 2, KMF: 0, KPW: 2, KRW: 0, KWD: 3, KYD: 2, KZT: 2,
  LAK: 2, LBP: 2, LKR: 2, LRD: 2, LSL: 2, LYD: 3,
  MAD: 2, MDL: 2, MGA: 2, MKD: 2, MMK: 2, MNT: 2, MOP: 2, MRU: 2, MUR: 2, MVR: 2,
  MWK: 2, MXN: 2, MXV: 2, MYR: 2, MZN: 2,
  NAD: 2, NGN: 2, NIO: 2, NOK: 2, NPR: 2, NZD: 2,
  OMR: 3,
  PAB: 2, PEN: 2, PGK: 2, PHP: 2, PKR: 2, PLN: 2, PYG: 0,
  QAR: 2,
  RON: 2, RSD: 2, RUB: 2, RWF: 0,
  SAR: 2, SBD: 2, SCR: 2, SDG: 2, SEK: 2, SGD: 2, SHP: 2, SLE: 2, SLL: 2, SOS: 2,
  SRD: 2, SSP: 2, STN: 2, SVC: 2, SYP: 2, SZL: 2,
  THB: 2, TJS: 2, TMT: 2, TND: 3, TOP: 2, TRY: 2, TTD: 2, TWD: 2, TZS: 2,
  UAH: 2, UGX: 0, USD: 2, USN: 2, UYI: 0, UYU: 2, UYW: 4, UZS: 2,
  VED: 2, VES: 2, VND: 0, VUV: 0,
  WST: 2,
  XAF: 0, XCD: 2, XCG: 2, XOF: 0, XPF: 0,
  // Minor unit "N.A." in ISO 4217: precious metals, bond-market units, SDR, test, none.
  XAG: 2, XAU: 2, XBA: 2, XBB: 2, XBC: 2, XBD: 2, XDR: 2, XPD: 2, XPT: 2, XSU: 2,
  XTS: 2, XUA: 2, XXX: 2,
  YER: 2,
  ZAR: 2, ZMW: 2, ZWG: 2, ZWL: 2,
};

/** ISO 4217 list three (withdrawn codes) with their historical minor units. */
// biome-ignore format: a compact table
const WITHDRAWN: Readonly<Record<string, number>> = {
  // Euro legacy currencies.
  ATS: 2, BEF: 2, CYP: 2, DEM: 2, EEK: 2, ESP: 0, FIM: 2, FRF: 2, GRD: 0, HRK: 2,
  IEP: 2, ITL: 0, LTL: 2, LUF: 0, LVL: 2, MTL: 2, NLG: 2, PTE: 0, SIT: 2, SKK: 2,
  ADP: 0, MCF: 2, SML: 0, VAL: 0, XEU: 2,
  // Other withdrawn codes.
  AFA: 2, ALK: 2, AOK: 0, AON: 0, AOR: 0, ARA: 2, ARP: 2, ARY: 2, AYM: 0, AZM: 2,
  BAD: 2, BEC: 2, BEL: 2, BGJ: 2, BGK: 2, BGL: 2, BOP: 2, BRB: 2, BRC: 2,
  BRE: 2, BRN: 2, BRR: 2, BUK: 2, BYB: 2, BYR: 0,
  CHC: 2, CSD: 2, CSJ: 2, CSK: 2,
  DDM: 2,
  ECS: 0, ECV: 2,
  ESA: 2, ESB: 2,
  GEK: 0, GHC: 2, GHP: 2, GNE: 2, GNS: 2, GQE: 2, GWE: 2, GWP: 2,
  HRD: 2,
  ILP: 2, ILR: 2, ISJ: 2,
  LAJ: 2, LSM: 2, LTT: 2, LUC: 2, LUL: 2, LVR: 2,
  MGF: 0, MLF: 0, MRO: 2, MTP: 2, MVQ: 2, MXP: 2, MZE: 2, MZM: 2,
  NIC: 2,
  PEH: 2, PEI: 2, PES: 2, PLZ: 2,
  RHD: 2, ROK: 2, ROL: 2, RUR: 2,
  SDD: 2, SDP: 2, SRG: 2, STD: 2, SUR: 2,
  TJR: 2, TMM: 2, TPE: 2, TRL: 0,
  UAK: 2, UGS: 2, USS: 2, UYN: 2, UYP: 2,
  VEB: 2, VEF: 2, VNC: 2,
  XFO: 2, XFU: 2, XRE: 2,
  YDD: 2, YUD: 2, YUM: 2, YUN: 2,
  ZAL: 2, ZMK: 2, ZRN: 2, ZRZ: 2, ZWC: 2, ZWD: 2, ZWN: 2, ZWR: 2,
};

/** Every accepted ISO 4217 alphabetic code (current and withdrawn) with its minor units. */
export const CURRENCY_MINOR_UNITS: Readonly<Record<string, number>> = Object.freeze(
  Object.fromEntries([...Object.entries(WITHDRAWN), ...Object.entries(CURRENT)]),
);

/** True when `code` is an ISO 4217 alphabetic code, current or withdrawn (spec). Case-sensitive. */
export function isCurrencyCode(code: string): boolean {
  return Object.hasOwn(CURRENCY_MINOR_UNITS, code);
}

/** The currency's ISO 4217 minor units; 2 when the currency is absent or unknown (D6). */
export function minorUnits(code: string | null | undefined): number {
  if (code == null || !isCurrencyCode(code)) return 2;
  return CURRENCY_MINOR_UNITS[code] ?? 2;
}
