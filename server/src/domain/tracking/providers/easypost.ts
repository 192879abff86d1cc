import { createHmac } from 'node:crypto';
import { z } from 'zod';
import { equalBytes } from '../../../lib/crypto';
import { deliveryProofOf, type NormalisedPackage, type TrackingStatus } from '../vocabulary';
import { headerValue, joinParts, normalisedEvent, optionalTime, rawCode, shapeReason, zText, zTime } from './common';

/** D54: `hmac-sha256-hex=<hex HMAC-SHA256 of the raw body>`, the key NFKD-normalised as EasyPost does. */
export const EASYPOST_SIGNATURE_HEADER = 'x-hmac-signature';
const SIGNATURE = /^hmac-sha256-hex=([0-9a-fA-F]{64})$/;

export function verifyEasypost(
  secret: string,
  rawBody: Buffer,
  headers: Record<string, string | string[] | undefined>,
): boolean {
  const match = SIGNATURE.exec(headerValue(headers, EASYPOST_SIGNATURE_HEADER)?.trim() ?? '');
  if (!secret || !match?.[1]) return false;
  const expected = createHmac('sha256', secret.normalize('NFKD')).update(rawBody).digest();
  return equalBytes(Buffer.from(match[1], 'hex'), expected);
}

const STATUSES: Readonly<Record<string, TrackingStatus>> = {
  pre_transit: 'pre_transit',
  in_transit: 'in_transit',
  out_for_delivery: 'out_for_delivery',
  available_for_pickup: 'available_for_pickup',
  delivered: 'delivered',
  return_to_sender: 'return_to_sender',
  failure: 'exception',
  unknown: 'unknown',
  error: 'unknown',
  cancelled: 'unknown',
};

/** status_detail values that say more than the status; the rest keep only the raw code. */
const DETAILS: Readonly<Record<string, string>> = {
  lost: 'lost',
  damaged: 'damaged',
  delayed: 'delayed',
  weather_delay: 'delayed',
  refused: 'refused',
  address_correction: 'address_issue',
  return: 'returning',
};

/** An EasyPost status and status_detail in our vocabulary: a failure whose detail is `lost` is lost (D54). */
export function easypostStatus(
  status: string | null | undefined,
  detail: string | null | undefined,
): { status: TrackingStatus; subStatus: string | null } {
  const ours = (status && Object.hasOwn(STATUSES, status) ? STATUSES[status] : undefined) ?? 'unknown';
  if (ours === 'unknown') return { status: ours, subStatus: null };
  const subStatus = (detail && Object.hasOwn(DETAILS, detail) ? DETAILS[detail] : undefined) ?? null;
  if (status === 'failure' && subStatus === 'lost') return { status: 'lost', subStatus };
  return { status: ours, subStatus };
}

const zDetail = z.object({
  datetime: zTime,
  status: zText,
  status_detail: zText,
  message: zText,
  description: zText,
  tracking_location: z.object({ city: zText, state: zText, country: zText }).nullish(),
});

const zEvent = z.object({ id: zText, description: z.string(), result: z.unknown() });

const zTracker = z.object({
  tracking_code: z.string().trim().min(1),
  carrier: zText,
  est_delivery_date: zText,
  /**
   * D57: who signed for the package, when the carrier reports it. The Tracker publishes no
   * delivery photo: its `carrier_detail` and `tracking_details` carry none (EasyPost's client
   * libraries' Tracker, TrackingDetail and CarrierDetail), so `signed_by` is its whole proof.
   */
  signed_by: zText,
  tracking_details: z.array(zDetail).nullish(),
});

/** Events other than a tracker's (EasyPost sends every kind to one URL) carry no package. */
export function parseEasypost(
  body: unknown,
): { ok: true; packages: NormalisedPackage[] } | { ok: false; reason: string } {
  const event = zEvent.safeParse(body);
  if (!event.success) return { ok: false, reason: shapeReason('EasyPost', event.error) };
  if (!event.data.description.startsWith('tracker.')) return { ok: true, packages: [] };
  const tracker = zTracker.safeParse(event.data.result);
  if (!tracker.success) return { ok: false, reason: shapeReason('EasyPost', tracker.error) };
  const { tracking_code: trackingNumber, carrier = null } = tracker.data;
  const events = (tracker.data.tracking_details ?? []).map((detail) =>
    normalisedEvent({
      trackingNumber,
      carrier: carrier || null,
      providerEventId: null,
      occurredAt: detail.datetime,
      ...easypostStatus(detail.status, detail.status_detail),
      rawStatus: rawCode(detail.status, detail.status_detail),
      description: detail.message || detail.description || null,
      location: joinParts([
        detail.tracking_location?.city,
        detail.tracking_location?.state,
        detail.tracking_location?.country,
      ]),
    }),
  );
  const estimatedDeliveryAt = optionalTime(tracker.data.est_delivery_date);
  const deliveryProof = deliveryProofOf(tracker.data.signed_by, null);
  return {
    ok: true,
    packages: [
      {
        trackingNumber,
        carrier: carrier || null,
        estimatedDeliveryAt,
        events,
        ...(deliveryProof ? { deliveryProof } : {}),
      },
    ],
  };
}
