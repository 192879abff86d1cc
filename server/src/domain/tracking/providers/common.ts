import { z } from 'zod';
import { eventKeyOf, isCarrierScanStatus, type NormalisedEvent } from '../vocabulary';

/** A header by name, whatever its case; a header sent twice is not one value and reads as missing. */
export function headerValue(headers: Record<string, string | string[] | undefined>, name: string): string | null {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== wanted) continue;
    if (typeof value === 'string') return value;
    if (Array.isArray(value) && value.length === 1 && typeof value[0] === 'string') return value[0];
    return null;
  }
  return null;
}

/** ISO 8601 with or without an offset; without one the time is read as UTC, never the server's zone. */
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

export function parseTime(text: string): Date | null {
  const match = ISO_DATE_TIME.exec(text.trim());
  if (!match) return null;
  const iso = text.trim().replace(' ', 'T');
  const hasTime = iso.includes('T');
  const date = new Date(hasTime && !match[1] ? `${iso}Z` : iso);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** An optional time field: absent, null, empty or unreadable reads as null (an estimate is a hint). */
export function optionalTime(text: string | null | undefined): Date | null {
  return text ? parseTime(text) : null;
}

/** A required time field: unreadable makes the payload not the provider's shape. */
export const zTime = z.string().transform((text, ctx) => {
  const date = parseTime(text);
  if (!date) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: `not a date-time: ${JSON.stringify(text)}` });
    return z.NEVER;
  }
  return date;
});

/** A text field providers send as a string, null or nothing. */
export const zText = z.string().nullish();

/** What a provider says of one event; the key and whether it is a carrier scan follow from it. */
export type EventFields = Omit<NormalisedEvent, 'eventKey' | 'isCarrierScan'> & { providerEventId: string | null };

/** The normalised event: the provider's id as its key, or a digest of what it says when it has none. */
export function normalisedEvent(fields: EventFields): NormalisedEvent {
  const { providerEventId, ...rest } = fields;
  const eventKey =
    providerEventId ?? eventKeyOf(fields.trackingNumber, fields.occurredAt, fields.rawStatus, fields.description);
  return { ...rest, eventKey, isCarrierScan: isCarrierScanStatus(fields.status) };
}

/** "a, b, c" of the parts that are present, or null when none is. */
export function joinParts(parts: readonly (string | null | undefined)[]): string | null {
  const present = parts.map((part) => part?.trim()).filter((part): part is string => !!part);
  return present.length ? present.join(', ') : null;
}

/** A raw code pair as kept beside ours: "Tag/Subtag", "Tag" alone, or null. */
export function rawCode(code: string | null | undefined, detail: string | null | undefined): string | null {
  if (!code) return detail || null;
  return detail ? `${code}/${detail}` : code;
}

/** JSON of the raw bytes, or undefined when they are not JSON. */
export function parseJson(rawBody: Buffer): unknown {
  try {
    return JSON.parse(rawBody.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** The first issue of a failed parse, for the refusal's reason. */
export function shapeReason(provider: string, error: z.ZodError): string {
  const issue = error.issues[0];
  const where = issue?.path.length ? issue.path.join('.') : 'body';
  return `not a ${provider} payload: ${where}: ${issue?.message ?? 'invalid'}`;
}
