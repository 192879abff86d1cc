import { z } from 'zod';
import { digest, matchesDigest } from '../../../lib/crypto';
import { deliveryProofOf, type NormalisedPackage, type TrackingStatus } from '../vocabulary';
import { headerValue, normalisedEvent, optionalTime, rawCode, shapeReason, zText, zTime } from './common';

/** D54: Ship24 signs nothing; it presents the shared secret as `Authorization: Bearer <secret>`. */
const BEARER = /^Bearer (\S+)$/;

export function verifyShip24(
  secret: string,
  _rawBody: Buffer,
  headers: Record<string, string | string[] | undefined>,
): boolean {
  const match = BEARER.exec(headerValue(headers, 'authorization')?.trim() ?? '');
  // Digests of both sides have equal length, so the comparison is constant time whatever was sent.
  return !!secret && !!match?.[1] && matchesDigest(match[1], digest(secret));
}

const MILESTONES: Readonly<Record<string, TrackingStatus>> = {
  info_received: 'pre_transit',
  in_transit: 'in_transit',
  out_for_delivery: 'out_for_delivery',
  available_for_pickup: 'available_for_pickup',
  delivered: 'delivered',
  failed_attempt: 'exception',
  exception: 'exception',
  pending: 'unknown',
};

/**
 * Exception status codes that say more than the milestone, matched by prefix so that a
 * variant of a known code (`exception_lost_or_stolen`) still reads; the rest keep only the raw code.
 */
const EXCEPTION_CODES: readonly [prefix: string, meaning: { status?: TrackingStatus; subStatus: string }][] = [
  ['exception_returned', { status: 'return_to_sender', subStatus: 'returned' }],
  ['exception_return', { status: 'return_to_sender', subStatus: 'returning' }],
  ['exception_lost', { status: 'lost', subStatus: 'lost' }],
  ['exception_damage', { subStatus: 'damaged' }],
  ['exception_delay', { subStatus: 'delayed' }],
  ['exception_reject', { subStatus: 'refused' }],
  ['exception_refus', { subStatus: 'refused' }],
];

/** A Ship24 milestone and status code in our vocabulary: anything not known is `unknown` (D54). */
export function ship24Status(
  milestone: string | null | undefined,
  code: string | null | undefined,
): { status: TrackingStatus; subStatus: string | null } {
  const status = (milestone && Object.hasOwn(MILESTONES, milestone) ? MILESTONES[milestone] : undefined) ?? 'unknown';
  if (status === 'unknown') return { status, subStatus: null };
  if (milestone === 'failed_attempt') return { status, subStatus: 'attempted_delivery' };
  const special = code ? EXCEPTION_CODES.find(([prefix]) => code.startsWith(prefix))?.[1] : undefined;
  if (special && milestone === 'exception') return { status: special.status ?? status, subStatus: special.subStatus };
  return { status, subStatus: null };
}

const zCourier = z.union([z.string(), z.array(z.string())]).nullish();

/**
 * D57: a proof of delivery message (topic `tracking/pod`, Ship24's Proof of Delivery add-on,
 * sent to the same URL as the tracking results or another, under the same secret): `data.status`
 * is `found` or `unavailable`; `data.content.type` says what the proof is, `text/plain` or
 * `text/html` with the signatory's name or a delivery note in `content.text`, otherwise an image
 * or a PDF at `content.downloadUrl` (Ship24 keeps it 7 days). Shape from Ship24's documentation
 * (docs.ship24.com/webhooks/proof-of-delivery) and its published example payload.
 */
const zProof = z
  .object({
    status: zText,
    content: z.object({ type: zText, text: zText, downloadUrl: zText }).nullish(),
  })
  .nullish();

const zTracking = z.object({
  metadata: z.object({ topic: zText }).nullish(),
  tracker: z.object({ trackingNumber: z.string().trim().min(1), courierCode: zCourier }),
  shipment: z
    .object({
      /** D57: `signedBy`, who signed for the shipment, when the courier says. */
      delivery: z.object({ estimatedDeliveryDate: zText, signedBy: zText }).nullish(),
    })
    .nullish(),
  data: zProof,
  events: z
    .array(
      z.object({
        eventId: zText,
        occurrenceDatetime: zTime,
        statusMilestone: zText,
        statusCode: zText,
        status: zText,
        location: zText,
        courierCode: zText,
      }),
    )
    .nullish(),
});

const zPayload = z.object({ trackings: z.array(zTracking) });

/** The proof a tracking carries: the signatory of its shipment, or what a `tracking/pod` message found. */
function ship24Proof(tracking: z.infer<typeof zTracking>) {
  const signedBy = tracking.shipment?.delivery?.signedBy;
  const proof = tracking.metadata?.topic === 'tracking/pod' && tracking.data?.status === 'found' ? tracking.data : null;
  const type = proof?.content?.type?.trim().toLowerCase() ?? '';
  if (!proof?.content) return deliveryProofOf(signedBy, null);
  if (type.startsWith('text/')) {
    const text = type === 'text/html' ? proof.content.text?.replace(/<[^>]*>/g, ' ') : proof.content.text;
    return deliveryProofOf(text || signedBy, null);
  }
  return deliveryProofOf(signedBy, proof.content.downloadUrl);
}

/** Ship24 groups updates: one package per tracking; a proof of delivery comes as a tracking with no events. */
export function parseShip24(
  body: unknown,
): { ok: true; packages: NormalisedPackage[] } | { ok: false; reason: string } {
  const parsed = zPayload.safeParse(body);
  if (!parsed.success) return { ok: false, reason: shapeReason('Ship24', parsed.error) };
  const packages = parsed.data.trackings.map((tracking): NormalisedPackage => {
    const { tracker, shipment, events } = tracking;
    const trackingNumber = tracker.trackingNumber;
    const carrier = (Array.isArray(tracker.courierCode) ? tracker.courierCode[0] : tracker.courierCode) || null;
    const deliveryProof = ship24Proof(tracking);
    return {
      trackingNumber,
      carrier,
      estimatedDeliveryAt: optionalTime(shipment?.delivery?.estimatedDeliveryDate),
      events: (events ?? []).map((event) =>
        normalisedEvent({
          trackingNumber,
          carrier: event.courierCode || carrier,
          providerEventId: event.eventId || null,
          occurredAt: event.occurrenceDatetime,
          ...ship24Status(event.statusMilestone, event.statusCode),
          rawStatus: rawCode(event.statusMilestone, event.statusCode),
          description: event.status || null,
          location: event.location || null,
        }),
      ),
      ...(deliveryProof ? { deliveryProof } : {}),
    };
  });
  return { ok: true, packages };
}
