import { z } from 'zod';
import { CLAIM_TYPES, ZClaim, ZClaimListNode, ZClaimType } from '../../schemas/claims';
import { schemaChange, type VersionChange } from '../change';

/** The claim types that exist from 2027-01-15 only (D54). */
const TRACKING_CLAIM_TYPES: readonly string[] = ['LOST_IN_TRANSIT', 'DELAYED'];

/** `claimType` as 2026-12-01 and earlier know it: without the tracking claim types (D54). */
const ZClaimTypeBefore = z.enum(CLAIM_TYPES.filter((t) => !TRACKING_CLAIM_TYPES.includes(t)) as [string, ...string[]]);
const ZClaimBefore = ZClaim.extend({ claimType: ZClaimTypeBefore.nullable() }).strict();
const ZClaimListNodeBefore = ZClaimListNode.extend({ claimType: ZClaimTypeBefore.nullable() }).strict();

/** Whether a claim type exists only from 2027-01-15 (D54). */
export function isTrackingClaimType(claimType: string | null): boolean {
  return claimType !== null && TRACKING_CLAIM_TYPES.includes(claimType);
}

/** A claim record (or list item, or webhook body) made old: a tracking claim type reads null. */
function hideTrackingClaimType(values: Record<string, unknown>[]): void {
  for (const value of values) {
    if (isTrackingClaimType(value.claimType as string | null)) value.claimType = null;
  }
}

const claims = schemaChange(ZClaim, ZClaimBefore, hideTrackingClaimType);
const listNodes = schemaChange(ZClaimListNode, ZClaimListNodeBefore, hideTrackingClaimType);

/**
 * D54: claims the service files from tracking have the claim types `LOST_IN_TRANSIT` and
 * `DELAYED` from 2027-01-15; earlier versions show such a claim's `claimType` as null, in
 * answers and in webhook bodies.
 */
export const trackingClaimTypes: VersionChange = {
  id: 'tracking-claim-types',
  version: '2026-12-01',
  title: 'Claims filed from tracking have no `claimType`',
  description:
    'A claim the service filed because tracking showed its package lost or late reads `"claimType": null` in every answer and webhook body that carries claims, and the claim list and export refuse `LOST_IN_TRANSIT` and `DELAYED` as a `claimType` filter (400); 2027-01-15 names their type `LOST_IN_TRANSIT` or `DELAYED`. A claim filed for a package returned to sender reads `RETURNED_TO_SENDER` in every version.',
  why: 'The claim types say which tracking rule filed the claim, so a partner can tell a lost package from a late one without reading the description.',
  upgrade:
    'Accept `LOST_IN_TRANSIT` and `DELAYED` wherever you read `claimType` (in answers, list filters and `claim/created`).',
  // The list's and the export's `claimType` filter and `claim/created`'s body know only these.
  narrows: [[ZClaimType, ZClaimTypeBefore]],
  route(key, route) {
    const one = claims.route?.(key, route);
    const other = listNodes.route?.(key, route);
    if (!one || !other) return one ?? other;
    // No route answers both a claim record and a list item, but keep both if one ever does.
    return {
      responses: { ...one.responses, ...other.responses },
      async down(answer, data) {
        return other.down ? other.down(await one.down!(answer, data), data) : answer;
      },
    };
  },
  webhook(topic, body) {
    if (topic !== 'claim/created' || typeof body !== 'object' || body === null) return body;
    const copy = { ...(body as Record<string, unknown>) };
    hideTrackingClaimType([copy]);
    return copy;
  },
};
