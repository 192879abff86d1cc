import { createHmac } from 'node:crypto';
import { z } from 'zod';
import { equalBytes } from '../../../lib/crypto';
import { deliveryProofOf, httpsAddress, type NormalisedPackage, type TrackingStatus } from '../vocabulary';
import { headerValue, joinParts, normalisedEvent, optionalTime, rawCode, shapeReason, zText, zTime } from './common';

/** D54: base64 HMAC-SHA256 of the raw body under the source's secret. */
export const AFTERSHIP_SIGNATURE_HEADER = 'aftership-hmac-sha256';
const BASE64_SHA256 = /^[A-Za-z0-9+/]{43}=$/;

export function verifyAftership(
  secret: string,
  rawBody: Buffer,
  headers: Record<string, string | string[] | undefined>,
): boolean {
  const presented = headerValue(headers, AFTERSHIP_SIGNATURE_HEADER)?.trim();
  if (!secret || !presented || !BASE64_SHA256.test(presented)) return false;
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  return equalBytes(Buffer.from(presented, 'base64'), expected);
}

const TAGS: Readonly<Record<string, TrackingStatus>> = {
  InfoReceived: 'pre_transit',
  InTransit: 'in_transit',
  OutForDelivery: 'out_for_delivery',
  AvailableForPickup: 'available_for_pickup',
  Delivered: 'delivered',
  AttemptFail: 'exception',
  Exception: 'exception',
  Pending: 'unknown',
  Expired: 'unknown',
};

/** Subtags that say more than their tag; AfterShip adds subtags over time, the rest keep only the raw code. */
const SUBTAGS: Readonly<Record<string, { status?: TrackingStatus; subStatus: string }>> = {
  Exception_002: { subStatus: 'address_issue' },
  Exception_003: { subStatus: 'refused' },
  Exception_004: { subStatus: 'delayed' },
  Exception_005: { subStatus: 'delayed' },
  Exception_007: { subStatus: 'address_issue' },
  Exception_010: { status: 'return_to_sender', subStatus: 'returning' },
  Exception_011: { status: 'return_to_sender', subStatus: 'returned' },
  Exception_012: { subStatus: 'damaged' },
  Exception_013: { status: 'lost', subStatus: 'lost' },
};

/** An AfterShip tag and subtag in our vocabulary: anything not known is `unknown` (D54). */
export function aftershipStatus(
  tag: string | null | undefined,
  subtag: string | null | undefined,
): { status: TrackingStatus; subStatus: string | null } {
  const status = (tag && Object.hasOwn(TAGS, tag) ? TAGS[tag] : undefined) ?? 'unknown';
  if (status === 'unknown') return { status, subStatus: null };
  const special = subtag && Object.hasOwn(SUBTAGS, subtag) ? SUBTAGS[subtag] : undefined;
  if (special && tag === 'Exception') return { status: special.status ?? status, subStatus: special.subStatus };
  return { status, subStatus: tag === 'AttemptFail' ? 'attempted_delivery' : null };
}

const zCheckpoint = z.object({
  checkpoint_time: zTime,
  tag: zText,
  subtag: zText,
  message: zText,
  location: zText,
  city: zText,
  state: zText,
  country_name: zText,
  slug: zText,
});

const zPayload = z.object({
  event: zText,
  event_id: zText,
  msg: z.object({
    tracking_number: z.string().trim().min(1),
    slug: zText,
    expected_delivery: zText,
    /** D57: who signed for the package, when the carrier reports it. */
    signed_by: zText,
    /**
     * D57: the carrier's proofs of delivery, `[{type, url}]` (AfterShip's Tracking object since
     * its 2024 API, read as its Go SDK's `ProofOfDelivery`): the first photo's address is kept.
     */
    proof_of_delivery: z.array(z.object({ type: zText, url: zText }).passthrough()).nullish(),
    courier_estimated_delivery_date: z.object({ estimated_delivery_date: zText }).nullish(),
    checkpoints: z.array(zCheckpoint).nullish(),
  }),
});

/** The address of a delivery photo among AfterShip's proofs: one typed as a photo or image first, else any. */
function proofPhoto(proofs: readonly { type?: string | null; url?: string | null }[] | null | undefined) {
  // Only addresses the kept proof accepts: one it would drop never hides a usable one after it.
  const usable = (proofs ?? []).filter((proof) => httpsAddress(proof.url) !== null);
  return (usable.find((proof) => /photo|image|picture/i.test(proof.type ?? '')) ?? usable[0])?.url ?? null;
}

export function parseAftership(
  body: unknown,
): { ok: true; packages: NormalisedPackage[] } | { ok: false; reason: string } {
  const parsed = zPayload.safeParse(body);
  if (!parsed.success) return { ok: false, reason: shapeReason('AfterShip', parsed.error) };
  const { msg } = parsed.data;
  const trackingNumber = msg.tracking_number;
  const carrier = msg.slug || null;
  const events = (msg.checkpoints ?? []).map((checkpoint) =>
    normalisedEvent({
      trackingNumber,
      carrier: checkpoint.slug || carrier,
      providerEventId: null,
      occurredAt: checkpoint.checkpoint_time,
      ...aftershipStatus(checkpoint.tag, checkpoint.subtag),
      rawStatus: rawCode(checkpoint.tag, checkpoint.subtag),
      description: checkpoint.message || null,
      location: checkpoint.location || joinParts([checkpoint.city, checkpoint.state, checkpoint.country_name]),
    }),
  );
  const estimate = msg.expected_delivery || msg.courier_estimated_delivery_date?.estimated_delivery_date;
  const deliveryProof = deliveryProofOf(msg.signed_by, proofPhoto(msg.proof_of_delivery));
  return {
    ok: true,
    packages: [
      {
        trackingNumber,
        carrier,
        estimatedDeliveryAt: optionalTime(estimate),
        events,
        ...(deliveryProof ? { deliveryProof } : {}),
      },
    ],
  };
}
