import { field } from '../forms';
import { safeNext } from '../paths';

/** The sign-in form as what the session's sign-in takes (D40): the e-mail, the password, where to go next. */
export function signInBody(body: Record<string, unknown>): { email: string; password: string; next: string } {
  return { email: field(body, 'email'), password: field(body, 'password'), next: safeNext(field(body, 'next')) };
}
