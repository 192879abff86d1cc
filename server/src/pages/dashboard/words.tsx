// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import type {
  TAuditAction,
  TClaimQueue,
  TClaimState,
  TClaimType,
  TDenyReason,
  TIssueType,
  TResolutionType,
  TRiskLevel,
  TRiskSignalCode,
  TTrackingAction,
  TTrackingRule,
  TTrackingStatus,
  TTransitionTargetState,
} from '@protection-service/sdk';

/** The dashboard's words for the API's values (D50): plain words on the page, the code beside where it helps. */

/** The claim queue's tabs (D50), in order; `queue` is the list's parameter (D51), none for "All". */
export const CLAIM_TABS: readonly { key: string; label: string; queue?: TClaimQueue }[] = [
  { key: 'to_do', label: 'To do', queue: 'to_do' },
  { key: 'waiting_on_shopper', label: 'Waiting on shopper', queue: 'waiting_on_shopper' },
  { key: 'on_hold', label: 'On hold', queue: 'on_hold' },
  { key: 'approved', label: 'Approved', queue: 'approved' },
  { key: 'declined', label: 'Declined', queue: 'declined' },
  { key: 'closed', label: 'Closed', queue: 'closed' },
  { key: 'all', label: 'All' },
];

export const STATE_WORDS: Record<TClaimState, string> = {
  NEW: 'New',
  OPEN: 'Open',
  COMMUNICATING: 'In conversation',
  WAITING_FOR_CUSTOMER: 'Waiting on shopper',
  WAITING_FOR_BRAND: 'Waiting on store',
  WAITING_FOR_OP: 'Waiting on protection team',
  APPROVED: 'Approved',
  DENIED: 'Declined',
  DISMISSED: 'Dismissed',
  TEMPORARILY_DISMISSED: 'Set aside',
  RESOLVED: 'Resolved',
  RESOLVED_BY_BRAND: 'Resolved by store',
  CLOSED: 'Closed',
  ARCHIVED: 'Archived',
};

export const TYPE_WORDS: Record<TClaimType | TIssueType, string> = {
  DAMAGED: 'Damaged',
  DEFECTIVE_ITEM: 'Defective item',
  MISSING_ITEM: 'Missing item',
  ORDER_DELIVERED_NOT_RECEIVED: 'Delivered, not received',
  RETURNED_TO_SENDER: 'Returned to sender',
  STOLEN: 'Stolen',
  WRONG_ITEM: 'Wrong item',
  MULTIPLE: 'Several issues',
  LOST_IN_TRANSIT: 'Lost in transit',
  DELAYED: 'Delayed',
};

export const RESOLUTION_WORDS: Record<TResolutionType, string> = {
  REFUND: 'Refund',
  RESHIP: 'Reship',
  STORE_CREDIT: 'Store credit',
};

/** D22's deny reasons in words, for the decline form and a declined claim. */
export const DENY_REASON_WORDS: Record<TDenyReason, string> = {
  NOT_COVERED: 'Not covered',
  ADDRESS_TYPO: 'Wrong address given',
  CUSTOMER_RESPONDED: 'Shopper responded',
  EXPIRED30: 'Filed after 30 days',
  FOLLOW_UP: 'Needs a follow-up',
  INSUFFICIENT_SHIPPER: 'Carrier information insufficient',
  NO_RESPONSE: 'No response from shopper',
  OTHER: 'Other',
  PACKAGE_ARRIVED: 'Package arrived',
  PHOTO_VERIFIED: 'Photos do not show the issue',
  THRESHOLD_REACHED: 'Claim limit reached',
  ALREADY_REFUNDED: 'Already refunded',
  ALREADY_REPLACED: 'Already replaced',
  POTENTIAL_FRAUD: 'Potential fraud',
};

/** D54's package statuses in words. */
export const TRACKING_STATUS_WORDS: Record<TTrackingStatus, string> = {
  pre_transit: 'Label created',
  in_transit: 'In transit',
  out_for_delivery: 'Out for delivery',
  available_for_pickup: 'Ready for pickup',
  delivered: 'Delivered',
  return_to_sender: 'Returning to sender',
  exception: 'Delivery problem',
  lost: 'Lost',
  unknown: 'Unknown',
};

/**
 * The sub-statuses the service maps providers' and fulfillments' codes to (D54). The list is
 * open: a sub-status not here is shown as its code.
 */
export const TRACKING_SUB_STATUS_WORDS: Readonly<Record<string, string>> = {
  label_printed: 'Label printed',
  label_purchased: 'Label bought',
  confirmed: 'Order confirmed',
  carrier_picked_up: 'Picked up by the carrier',
  delayed: 'Delayed',
  picked_up: 'Collected by the shopper',
  attempted_delivery: 'Delivery attempted',
  failure: 'Delivery failed',
  address_issue: 'Address problem',
  refused: 'Refused',
  returning: 'On its way back',
  returned: 'Back with the sender',
  damaged: 'Damaged',
  lost: 'Lost',
};

/** The rule a tracking decision fired (D54). */
export const TRACKING_RULE_WORDS: Record<TTrackingRule, string> = {
  lost: 'Lost',
  delayed: 'Delayed',
  returned: 'Returned to sender',
};

/** What a tracking evaluation did (D54). */
export const TRACKING_ACTION_WORDS: Record<TTrackingAction, string> = {
  filed: 'Claim filed',
  notified: 'Store alerted',
  skipped: 'Nothing done',
  escalated: 'Escalated',
};

/** A package's status in words (D54), its code for the record. */
export function TrackingLabel(props: { status: TTrackingStatus }) {
  return (
    <span class="state" title={props.status}>
      {TRACKING_STATUS_WORDS[props.status] ?? props.status}
    </span>
  );
}

/** A sub-status in words, else its code as it came; nothing for none. */
export function subStatusWords(subStatus: string | null): string {
  if (!subStatus) return '';
  return Object.hasOwn(TRACKING_SUB_STATUS_WORDS, subStatus) ? TRACKING_SUB_STATUS_WORDS[subStatus]! : subStatus;
}

/** A claim state in words, its code for the record. */
export function StateLabel(props: { state: TClaimState }) {
  return (
    <span class="state" title={props.state}>
      {STATE_WORDS[props.state] ?? props.state}
    </span>
  );
}

/** `2026-11-26 14:03 UTC`: unambiguous, the same on every machine. */
export function shortDate(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** The states a claim may be moved to by hand (D22; approve and decline have their own forms). */
export const MOVE_TARGETS: readonly TTransitionTargetState[] = [
  'OPEN',
  'COMMUNICATING',
  'WAITING_FOR_CUSTOMER',
  'WAITING_FOR_BRAND',
  'WAITING_FOR_OP',
  'TEMPORARILY_DISMISSED',
  'DISMISSED',
  'RESOLVED',
  'RESOLVED_BY_BRAND',
  'CLOSED',
  'ARCHIVED',
  'NEW',
];

/** A member's role (D49) in the words of the team and invitation pages (D53). */
export { ROLE_WORDS } from '@protection-service/contract';

/** An e-mail address that may break before its `@` on a narrow screen, and nowhere else. */
export function Email(props: { address: string }) {
  const at = props.address.lastIndexOf('@');
  if (at <= 0) return <span class="nowrap">{props.address}</span>;
  return (
    <>
      <span class="nowrap">{props.address.slice(0, at)}</span>
      <wbr />
      <span class="nowrap">{props.address.slice(at)}</span>
    </>
  );
}

/** The actions in words, for the filter and the table (D53). */
export const ACTION_WORDS: Record<TAuditAction, string> = {
  'claim.approved': 'Claim approved',
  'claim.denied': 'Claim declined',
  'claim.moved': 'Claim moved',
  'claim.note_added': 'Note added',
  'claims.exported': 'Claims exported',
  'settings.updated': 'Settings changed',
  'pricing.updated': 'Pricing changed',
  'member.invited': 'Member invited',
  'member.role_changed': 'Role changed',
  'member.removed': 'Member removed',
  'app.installed': 'App installed',
  'app.uninstalled': 'App uninstalled',
  'user.signed_in': 'Signed in',
  'user.password_changed': 'Password changed',
  'tracking_source.created': 'Tracking source added',
  'tracking_source.removed': 'Tracking source removed',
  'tracking_settings.updated': 'Tracking rules changed',
};

export const AUDIT_ACTIONS = Object.keys(ACTION_WORDS) as TAuditAction[];

/** A claim's risk level in words (D57): what the store's own data says, never a decision. */
export const RISK_WORDS: Record<TRiskLevel, string> = { high: 'High risk', medium: 'Medium risk', low: 'Low risk' };

/** Each risk signal in words (D57): what it means, before its own detail. */
export const SIGNAL_WORDS: Record<TRiskSignalCode, string> = {
  repeat_claimer: 'The shopper has claimed before',
  photo_reused: 'A photo was also sent with another claim',
  carrier_delivered: 'The carrier reported the package delivered',
  filed_before_delivery: 'Filed while the package was still on its way',
  amount_outlier: "Worth far more than the store's usual claim",
  missing_photos: 'No photo, though the store asks for one',
};

/** A claim's risk level as a badge (D57), its code for the record. */
export function RiskBadge(props: { level: TRiskLevel }) {
  return (
    <span class={`state risk risk-${props.level}`} title={`risk ${props.level}`}>
      {RISK_WORDS[props.level] ?? props.level}
    </span>
  );
}
