import { digest } from '../../lib/crypto';

/** D54: the one status vocabulary every provider and the fulfillment status map onto. */
export const TRACKING_STATUSES = [
  'pre_transit',
  'in_transit',
  'out_for_delivery',
  'available_for_pickup',
  'delivered',
  'return_to_sender',
  'exception',
  'lost',
  'unknown',
] as const;
export type TrackingStatus = (typeof TRACKING_STATUSES)[number];

/** D54: statuses that never fall back to an earlier-dated one. */
export const FINAL_STATUSES: ReadonlySet<TrackingStatus> = new Set<TrackingStatus>([
  'delivered',
  'lost',
  'return_to_sender',
]);

/** One tracking event in our vocabulary, the provider's own code kept beside it. */
export interface NormalisedEvent {
  trackingNumber: string;
  carrier: string | null;
  /** The provider's event id, or a digest of what the event says (eventKeyOf): inserting twice does nothing. */
  eventKey: string;
  occurredAt: Date;
  status: TrackingStatus;
  subStatus: string | null;
  /** The provider's code(s), e.g. "Exception/Exception_013". */
  rawStatus: string | null;
  description: string | null;
  location: string | null;
  /** A scan by the carrier: anything past pre_transit/unknown (lastScanAt; shipping is the first one, D54). */
  isCarrierScan: boolean;
}

export interface NormalisedPackage {
  trackingNumber: string;
  carrier: string | null;
  estimatedDeliveryAt: Date | null;
  events: NormalisedEvent[];
  /** D57: who signed for the package, a photo of it delivered, when the provider sent either. */
  deliveryProof?: { signedBy: string | null; photoUrl: string | null } | null;
}

/** D57: the longest delivery photo address kept; a longer one is dropped, since a cut address leads nowhere. */
export const PROOF_URL_AT_MOST = 2000;
/** D57: the longest name of a signatory kept (cut to it). */
export const SIGNED_BY_AT_MOST = 200;

/**
 * D57: a delivery proof of the fields a provider sent, or null when it sent none. The photo is
 * kept only as an `https` address of at most PROOF_URL_AT_MOST characters (the dashboard links
 * it; anything else could be a `javascript:` or plain `http` address); the name loses its
 * control characters and runs of spaces.
 */
export function deliveryProofOf(signedBy: string | null | undefined, photoUrl: string | null | undefined) {
  const signed =
    signedBy
      ?.replace(/[\p{Cc}\s]+/gu, ' ')
      .trim()
      .slice(0, SIGNED_BY_AT_MOST)
      .trim() || null;
  const photo = httpsAddress(photoUrl);
  return signed || photo ? { signedBy: signed, photoUrl: photo } : null;
}

/** `text` trimmed when it is a usable `https` address of at most PROOF_URL_AT_MOST characters (no credentials, no spaces or control characters), else null. */
export function httpsAddress(text: string | null | undefined): string | null {
  const trimmed = text?.trim();
  if (!trimmed?.toLowerCase().startsWith('https://') || trimmed.length > PROOF_URL_AT_MOST) return null;
  if (/[\p{Cc}\s]/u.test(trimmed)) return null;
  try {
    const url = new URL(trimmed);
    return url.protocol === 'https:' && url.hostname !== '' && !url.username && !url.password ? trimmed : null;
  } catch {
    return null;
  }
}

/** A carrier scan is any event the carrier made once it held the package. */
export function isCarrierScanStatus(status: TrackingStatus): boolean {
  return status !== 'pre_transit' && status !== 'unknown';
}

/**
 * The key of an event that has no id of its own: the same event, delivered again (every
 * payload carries the whole history), gets the same key.
 */
export function eventKeyOf(
  trackingNumber: string,
  occurredAt: Date,
  rawCode: string | null,
  description: string | null,
): string {
  return `sha256:${digest(JSON.stringify([trackingNumber, occurredAt.toISOString(), rawCode, description]))}`;
}

/**
 * D54: a fulfillment PUT whose fulfillmentStatus changed is one event. Statuses that say
 * nothing of where the package is (not shipped yet, on hold) map to null: no event.
 */
const FROM_FULFILLMENT_STATUS: Readonly<Record<string, { status: TrackingStatus; subStatus: string | null }>> = {
  LABEL_PRINTED: { status: 'pre_transit', subStatus: 'label_printed' },
  LABEL_PURCHASED: { status: 'pre_transit', subStatus: 'label_purchased' },
  CONFIRMED: { status: 'pre_transit', subStatus: 'confirmed' },
  CARRIER_PICKED_UP: { status: 'in_transit', subStatus: 'carrier_picked_up' },
  IN_TRANSIT: { status: 'in_transit', subStatus: null },
  DELAYED: { status: 'in_transit', subStatus: 'delayed' },
  OUT_FOR_DELIVERY: { status: 'out_for_delivery', subStatus: null },
  READY_FOR_PICKUP: { status: 'available_for_pickup', subStatus: null },
  DELIVERED: { status: 'delivered', subStatus: null },
  PICKED_UP: { status: 'delivered', subStatus: 'picked_up' },
  ATTEMPTED_DELIVERY: { status: 'exception', subStatus: 'attempted_delivery' },
  FAILURE: { status: 'exception', subStatus: 'failure' },
};

export function statusFromFulfillmentStatus(
  fulfillmentStatus: string,
): { status: TrackingStatus; subStatus: string | null } | null {
  const mapped = Object.hasOwn(FROM_FULFILLMENT_STATUS, fulfillmentStatus)
    ? FROM_FULFILLMENT_STATUS[fulfillmentStatus]
    : undefined;
  return mapped ? { ...mapped } : null;
}
