import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';

/**
 * The rules every dashboard form follows (D50): the session's CSRF token, and a same-origin
 * request by the browser's own account (`Sec-Fetch-Site`, else `Origin`); its own
 * idempotency key, so a double submit acts once; and post-redirect-get, with what happened
 * said on the page it lands on.
 */

/** A form's idempotency key: new with every page, sent as `Idempotency-Key` (D33). */
export function newFormKey(): string {
  return randomUUID();
}

/** Whether the browser says this POST came from a page of this origin. */
export function sameOrigin(req: Request, publicOrigin: string): boolean {
  const site = req.get('sec-fetch-site');
  if (site !== undefined) return site === 'same-origin';
  const origin = req.get('origin');
  if (!origin || origin === 'null') return false;
  if (origin === publicOrigin) return true;
  try {
    return new URL(origin).host === req.get('host');
  } catch {
    return false;
  }
}

/** One value of a urlencoded form field (the first when repeated), trimmed. */
export function field(body: Record<string, unknown>, name: string): string {
  const value = body[name];
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' ? first.trim() : '';
}

/** Every value of a repeated field. */
export function fields(body: Record<string, unknown>, name: string): string[] {
  const value = body[name];
  const all = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return all.filter((v): v is string => typeof v === 'string');
}

/** The form's idempotency key, when it is one this page could have made. */
export function formKey(body: Record<string, unknown>): string | undefined {
  const key = field(body, 'idempotencyKey');
  return /^[0-9a-f-]{36}$/.test(key) ? key : undefined;
}

/** Post-redirect-get: a 303 to the page, never cached. */
export function seeOther(res: Response, location: string): void {
  res.setHeader('cache-control', 'no-store');
  res.redirect(303, location);
}

/** `location` with `?notice=…` (a word the page knows, never free text from the query). */
export function withNotice(location: string, notice: string, extra: Record<string, string> = {}): string {
  const query = new URLSearchParams({ notice, ...extra });
  return `${location}${location.includes('?') ? '&' : '?'}${query}`;
}
