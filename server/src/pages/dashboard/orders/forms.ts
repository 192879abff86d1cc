import type { TClaimFile, TClaimIssue, TIssueType, TResolutionType } from '@protection-service/sdk';
import { field } from '../forms';

/**
 * The claim the form describes (D23): one issue per line given an issue type, with its
 * quantity and the shared details. Undefined when no line has an issue. The API checks the
 * rest (the e-mail, quantities up to what is claimable, D39) and its refusal is the page.
 */
export function claimOf(body: Record<string, unknown>): TClaimFile | undefined {
  const details = field(body, 'details');
  const issues: TClaimIssue[] = [];
  for (let i = 0; i < 500 && body[`line-${i}-item`] !== undefined; i++) {
    const issueType = field(body, `line-${i}-issue`);
    if (issueType === '') continue;
    const item = field(body, `line-${i}-item`);
    const quantity = field(body, `line-${i}-quantity`);
    issues.push({
      issueType: issueType as TIssueType,
      // Not a number reaches the API as null and is refused there, in its words (D2).
      quantity: quantity === '' ? 1 : Number(quantity),
      ...(item ? { sourceItemId: item } : {}),
      ...(details ? { details } : {}),
    });
  }
  if (issues.length === 0) return undefined;
  return {
    email: field(body, 'email'),
    salesChannel: 'ONLINE',
    claimCategory: field(body, 'claimCategory') === 'WARRANTY' ? 'WARRANTY' : 'SHIPPING',
    claimFiledFrom: 'INTERNAL',
    fulfillmentIssues: [{ issues }],
    resolution: { desiredMethod: field(body, 'desiredMethod') as TResolutionType },
  };
}
