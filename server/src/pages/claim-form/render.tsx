// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import type { Request, Response } from 'express';
import type { FormStore, FoundOrder } from '../../domain/claims/shopper-form';
import type { BrowserSessions } from '../browser-session';
import { FormExpired, MessagePage, sendPage } from '../html';
import { ClaimFormPage, LookupPage, TooManyLookups, type TypedClaim, UnknownStorePage } from './views';

/** Each answer of the claim form (D56), one page each. */
export type Step =
  | { step: 'lookup'; store: FormStore; orderNumber?: string; email?: string; miss?: boolean }
  | { step: 'claim'; store: FormStore; order: FoundOrder; pass: string; typed: TypedClaim; errors?: string[] }
  | { step: 'unknown' }
  | { step: 'expired' }
  | { step: 'tooMany'; seconds: number }
  | { step: 'tooLarge' };

/** Sends a step with the D41 headers, in the browser session whose CSRF token its forms carry. */
export function renderPage(sessions: BrowserSessions) {
  return async (req: Request, res: Response, s: Step, status: number): Promise<void> => {
    const { csrf } = await sessions.ensure(req, res);
    switch (s.step) {
      case 'lookup':
        return sendPage(res, status, <LookupPage {...s} csrf={csrf} />);
      case 'claim':
        return sendPage(res, status, <ClaimFormPage {...s} csrf={csrf} />, { ownScripts: true });
      case 'unknown':
        return sendPage(res, status, <UnknownStorePage />);
      case 'expired':
        return sendPage(res, status, <FormExpired />);
      case 'tooMany':
        return sendPage(res, status, <TooManyLookups seconds={s.seconds} />);
      case 'tooLarge':
        return sendPage(
          res,
          status,
          <MessagePage title="Too large to send">
            <p>The photos together are too large. Send at most 10 photos of up to 10 MB each.</p>
          </MessagePage>,
        );
    }
  };
}

/**
 * A refused photo or claim in the shopper's words: the file's name where one is to blame, the
 * service's own message otherwise.
 */
export function refusalWords(status: number, fileName: string | undefined, message = ''): string {
  const file = fileName ? `"${fileName}"` : 'A photo';
  if (status === 413) return `${file} is larger than 10 MB.`;
  if (status === 415) return `${file} is not a photo we accept: send a JPEG, PNG, WebP or HEIC photo.`;
  if (status === 422 && fileName) return `${file} could not be read as a photo, or has more than 40 million pixels.`;
  if (status === 422) return 'A photo added to the form belongs to another store or claim: choose the photo again.';
  if (status === 503) return 'Photos cannot be stored just now. Try again in a moment.';
  if (/exceeds what is left to claim/.test(message)) {
    return 'Some of the items were claimed meanwhile: reload the page and check the quantities.';
  }
  return 'The claim could not be filed as it is. Check the form and try again.';
}
