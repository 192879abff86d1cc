import type { Contract } from '@protection-service/contract';
import { readClaim } from '../domain/claims/read';
import {
  addShopperMessage,
  advanceClaim,
  flushDeliveries,
  listTestMail,
  recordSampleEvent,
  resetStore,
} from '../domain/test-mode/helpers';
import { decisionJson } from '../domain/tracking/read';
import { addFulfillmentEvents } from '../domain/tracking/receive';
import { evaluateStore } from '../domain/tracking-claims/evaluate';
import { actorOf, storeOf } from '../http/caller';
import type { GroupHandlers, RouteContext } from './context';

const OK = { status: 'ok' } as const;

/**
 * The test helpers (D45). The auth gate has refused live tokens before any of these runs
 * (route metadata `mode: 'test'`); the store comes from the token only (D7).
 */
export function testHelperHandlers({ db, claimLinks }: RouteContext): GroupHandlers<Contract['testHelpers']> {
  return {
    async advanceClaim({ params, body, req }) {
      const actor = actorOf(req);
      await advanceClaim(db, actor, params.claimId, body);
      return { status: 200, body: await readClaim(db, actor.storeId, params.claimId, claimLinks) };
    },
    async addShopperMessage({ params, body, req }) {
      await addShopperMessage(db, storeOf(req), params.claimId, body.message);
      return { status: 200, body: OK };
    },
    async recordEvent({ body, req }) {
      return { status: 201, body: { eventId: await recordSampleEvent(db, storeOf(req), body.topic) } };
    },
    async flushDeliveries({ req }) {
      await flushDeliveries(db, storeOf(req));
      return { status: 200, body: OK };
    },
    async listMail({ req }) {
      return { status: 200, body: await listTestMail(db, claimLinks, storeOf(req)) };
    },
    async addTrackingEvents({ body, req }) {
      const { sourceOrderId, sourceFulfillmentId, ...events } = body;
      return {
        status: 200,
        body: await addFulfillmentEvents(db, storeOf(req), sourceOrderId, sourceFulfillmentId, events),
      };
    },
    async evaluateTracking({ body, req }) {
      // D54: the rules as if it were `asOf`; every evaluation asked for is recorded and answered.
      const decisions = await evaluateStore(db, storeOf(req), new Date(body.asOf));
      return {
        status: 200,
        body: {
          decisions: decisions.map((d) => ({ trackingNumber: d.trackingNumber, ...decisionJson(d) })),
        },
      };
    },
    async reset({ req }) {
      await resetStore(db, storeOf(req));
      return { status: 200, body: OK };
    },
  };
}
