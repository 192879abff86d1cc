import { z } from 'zod';
import { isCurrencyCode } from './currencies';

/** D3: ids in paths and bodies are non-empty strings of at most 255 characters. */
export const ZId = z.string().min(1).max(255);

/**
 * D47: the longest date or date-time a client may send. A real one is at most 29 characters
 * (`2026-03-14T09:26:53.000+14:00`); the rest is room for finer fractions of a second, which
 * the database rounds to microseconds.
 */
export const MAX_TIMESTAMP_LENGTH = 64;

/** D6: timestamps the service writes: ISO 8601 UTC with milliseconds. */
export const ZTimestamp = z.string().datetime({ precision: 3 });
/**
 * Timestamps clients send: any ISO 8601 date-time, with `Z` or an offset of at most 14 hours,
 * that falls in the years 0001-9999 in UTC (what D6 can render and the database can store).
 */
export const ZTimestampInput = z
  .string()
  .max(MAX_TIMESTAMP_LENGTH)
  .datetime({ offset: true })
  .refine(isRenderableInstant, 'must fall in the years 0001-9999 UTC, with an offset of at most 14 hours');

function isRenderableInstant(value: string): boolean {
  const offset = /([+-])(\d{2}):?(\d{2})$/.exec(value);
  if (offset && Number(offset[2]) * 60 + Number(offset[3]) > 14 * 60) return false;
  const year = new Date(value).getUTCFullYear();
  return year >= 1 && year <= 9999;
}
const ZDate = z.string().date();
const ZDateTime = z.string().datetime({ offset: true });
/**
 * A calendar date or date-time, in the same range as ZTimestampInput (a purchase date becomes
 * a stored timestamp). One string checked both ways rather than a union: the union became an
 * OpenAPI `oneOf` whose branches both matched a date-time, which strict validators refuse.
 */
export const ZDateOrDateTime = z
  .string()
  .max(MAX_TIMESTAMP_LENGTH)
  .refine(
    (value) => ZDate.safeParse(value).success || ZDateTime.safeParse(value).success,
    'must be an ISO 8601 date (YYYY-MM-DD) or date-time with Z or an offset',
  )
  .refine(isRenderableInstant, 'must fall in the years 0001-9999 UTC, with an offset of at most 14 hours');

/** Money in major units, never negative (D6, D18). */
export const ZAmount = z.number().finite().nonnegative().max(1e12);
/** A percentage, 0 to 100. */
export const ZPercentage = z.number().finite().min(0).max(100);

/**
 * Three capital letters, the form of an ISO 4217 alphabetic code, known or not: where a
 * currency is informational (the quote's, D43), an unknown code is accepted and rounds to 2
 * minor units (D6).
 */
export const ZCurrencyCode = z
  .string()
  .max(3)
  .regex(/^[A-Z]{3}$/, 'must be an ISO 4217 alphabetic code');
/** ISO 4217 alphabetic code; current and withdrawn codes are accepted, no others (spec, D18). */
export const ZCurrency = ZCurrencyCode.refine(isCurrencyCode, 'unknown ISO 4217 currency code');

export const ZEmail = z.string().max(254).email();
export const ZPhone = z
  .string()
  .max(32)
  .regex(/^\+?[0-9][0-9 ().-]{2,30}$/, 'must be a phone number')
  .describe('Phone number, digits with optional +, spaces, dots, dashes and parentheses');
export const ZUrl = z
  .string()
  .max(2048)
  .url()
  .refine((u) => /^https?:\/\//i.test(u), 'must be an http or https URL');

/** Free text of bounded size. */
export const ZText = (max = 10_000) => z.string().max(max);

/** The partner cohort key (spec). */
export const VARIANT_KEY_PATTERN = /^[a-zA-Z0-9_.:-]{1,64}$/;
export const ZVariantKey = z.string().max(64).regex(VARIANT_KEY_PATTERN, 'must match ^[a-zA-Z0-9_.:-]{1,64}$');

/** Partner context name, 1-128 characters (spec). */
export const ZName = z.string().min(1).max(128);

/** ISO 3166 two-letter codes, at most 100, stored and returned upper case (spec). */
export const ZRegionCodes = z
  .array(
    z
      .string()
      .max(2)
      .regex(/^[A-Za-z]{2}$/, 'must be a 2-letter code')
      .transform((s) => s.toUpperCase()),
  )
  .max(100);

/** ISO 8601 duration (for example `P1Y`, `P30D`). */
export const ZIsoDuration = z
  .string()
  .max(64)
  .regex(/^P(?!$)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+S)?)?$/, 'must be an ISO 8601 duration');

export const ZPlatformId = z.enum(['shopify', 'woocommerce', 'magento', 'bigcommerce', 'api']);

/** `{status: "ok"}` (spec). */
export const ZStatusOk = z.object({ status: z.literal('ok') }).strict();
/** v2 delete answer (D1). */
export const ZDeleted = z.object({ ok: z.literal(true) }).strict();

/** D1 envelope for authenticated /v2 bodies and the `data` routes of routes.tsv. */
export function data<T extends z.ZodTypeAny>(schema: T) {
  return z.object({ data: schema }).strict();
}

/** Query integers arrive as strings. */
export const ZQueryInt = (min: number, max: number) =>
  z
    .string()
    .max(9)
    .regex(/^\d{1,9}$/, 'must be an integer')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

/** A query number (decimal) that arrives as a string. */
export const ZQueryNumber = z
  .string()
  .max(19)
  .regex(/^\d{1,12}(\.\d{1,6})?$/, 'must be a non-negative number')
  .transform(Number);

/** D24 cursor paging query. */
export const ZPageQuery = z.object({
  first: ZQueryInt(1, 250).optional().describe('Page size from the start, 1-250 (default 50)'),
  after: z.string().max(512).optional().describe('Opaque cursor: items after this one'),
  last: ZQueryInt(1, 250).optional().describe('Page size from the end, 1-250'),
  before: z.string().max(512).optional().describe('Opaque cursor: items before this one'),
});

export const ZPageInfo = z
  .object({
    startCursor: z.string().nullable(),
    endCursor: z.string().nullable(),
    hasNextPage: z.boolean(),
    hasPreviousPage: z.boolean(),
  })
  .strict();

/** A cursor-paged connection of nodes (spec: GET /v1/claims). */
export function connection<T extends z.ZodTypeAny>(node: T) {
  return z
    .object({
      edges: z.array(z.object({ node, cursor: z.string() }).strict()),
      pageInfo: ZPageInfo,
    })
    .strict();
}

/**
 * D47: the longest value of a header whose malformed values are ignored rather than refused
 * (the cohort headers of D29, `If-None-Match`); longer answers 400. Node refuses a request
 * whose URL and headers together pass 16 KiB (431), so the three at their longest, with the
 * longest URL the document allows and a client's usual headers, stay well inside that; and
 * inside the 8 KiB a common proxy (nginx) allows one header line.
 */
export const MAX_HEADER_LENGTH = 2_048;

/** D33: optional on every token-authenticated POST. */
export const ZIdempotencyHeaders = z.object({
  'idempotency-key': z
    .string()
    .max(255)
    .regex(/^[\x21-\x7e]{1,255}$/, 'must be 1-255 printable characters')
    .optional(),
});
