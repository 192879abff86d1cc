import { z } from 'zod';

/**
 * D22: issue types (`issueType`, and `claimType` with `MULTIPLE`). In a module of their own
 * because the settings name them too (D56 `photosRequiredFor`), and the claims import the
 * settings.
 */
export const ISSUE_TYPES = [
  'DAMAGED',
  'DEFECTIVE_ITEM',
  'MISSING_ITEM',
  'ORDER_DELIVERED_NOT_RECEIVED',
  'RETURNED_TO_SENDER',
  'STOLEN',
  'WRONG_ITEM',
] as const;
export const ZIssueType = z.enum(ISSUE_TYPES);
export type TIssueType = z.infer<typeof ZIssueType>;
