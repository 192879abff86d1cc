import type { TTrackingEventsBody, TTrackingPackage } from '@protection-service/contract';
import type { Db } from '../../db/database';
import { transact } from '../../db/transact';
import { refuse } from '../../lib/refusal';
import { ingestPackage, type PackageOwner, packageOfBody } from './ingest';
import { parseInbound, type TrackingProvider, verifyInbound } from './providers';
import { findFulfillment, readPackages } from './read';
import { activeSource } from './sources';

/** D54: one answer for an unknown source and a bad signature, so neither can be told apart. */
export const INBOUND_REFUSED = 'unknown tracking source or invalid signature';

/** A secret no source has, checked when the source is unknown so both refusals take as long. */
const DUMMY_SECRET = 'svc_trsec_unknown-source-dummy-secret-0000000000';

/**
 * The partner route and the test helper (D54): the events of one package of a fulfillment,
 * ingested in one transaction; answers that package as read.
 */
export async function addFulfillmentEvents(
  db: Db,
  storeId: string,
  sourceOrderId: string,
  sourceFulfillmentId: string,
  body: TTrackingEventsBody,
): Promise<TTrackingPackage> {
  const f = await findFulfillment(db, storeId, sourceOrderId, sourceFulfillmentId);
  await transact(db, (trx) =>
    ingestPackage(trx, { storeId, livemode: f.livemode, fulfillment: f }, packageOfBody(body)),
  );
  const packages = await readPackages(db, f.orderId, sourceFulfillmentId);
  return packages.find((p) => p.trackingNumber === body.trackingNumber)!;
}

/**
 * `POST /v1/tracking/inbound/:sourceId` (D54): the signature is checked over the bytes that
 * arrived, before anything is parsed; then each package of the payload goes to every
 * fulfillment of the source's store that names its number, or is kept unbound.
 */
export async function receiveInbound(
  db: Db,
  secretKey: Buffer,
  sourceId: string,
  rawBody: Buffer | undefined,
  headers: Record<string, string | string[] | undefined>,
): Promise<void> {
  const source = await activeSource(db, secretKey, sourceId);
  const provider: TrackingProvider = source?.provider ?? 'aftership';
  const valid = verifyInbound(provider, source?.secret ?? DUMMY_SECRET, rawBody ?? Buffer.alloc(0), headers);
  if (!source || !valid || !rawBody) throw refuse.unauthorized(INBOUND_REFUSED);
  const parsed = parseInbound(source.provider, rawBody);
  if (!parsed.ok) throw refuse.invalid(`not a ${source.provider} tracking payload: ${parsed.reason}`);
  await transact(db, async (trx) => {
    for (const pkg of parsed.packages) {
      // The packages of fulfillments that name the number, read and locked in one go (by id,
      // so two deliveries naming the same packages cannot deadlock).
      const bound = await trx
        .selectFrom('trackingPackages as p')
        .innerJoin('orders as o', 'o.id', 'p.orderId')
        .select(['p.id', 'p.status', 'p.subStatus', 'p.carrier', 'p.estimatedDeliveryAt', 'p.orderId'])
        .select(['o.sourceOrderId', 'p.sourceFulfillmentId'])
        .where('p.storeId', '=', source.storeId)
        .where('p.trackingNumber', '=', pkg.trackingNumber)
        .where('o.deletedAt', 'is', null)
        .orderBy('p.id')
        .forUpdate('p')
        .execute();
      for (const b of bound) {
        const owner: PackageOwner = {
          storeId: source.storeId,
          livemode: source.livemode,
          fulfillment: {
            orderId: b.orderId!,
            sourceOrderId: b.sourceOrderId,
            sourceFulfillmentId: b.sourceFulfillmentId!,
          },
        };
        await ingestPackage(trx, owner, pkg, { ...b, created: false });
      }
      if (bound.length === 0)
        await ingestPackage(trx, { storeId: source.storeId, livemode: source.livemode, fulfillment: null }, pkg);
    }
  });
}
