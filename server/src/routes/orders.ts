import type { Contract } from '@protection-service/contract';
import { readOrderClaims } from '../domain/claims/read';
import { cancelFulfillment, listFulfillments, upsertFulfillment } from '../domain/commerce/fulfillments';
import { verifiedOffer } from '../domain/commerce/order-offers';
import { listOrders, readOrder } from '../domain/commerce/order-read';
import { deleteOrder, upsertOrder } from '../domain/commerce/orders';
import { storeOf } from '../http/caller';
import type { GroupHandlers, RouteContext } from './context';

const OK = { status: 'ok' } as const;

/** Orders, their protection policies and fulfillments (D18-D20); the store comes from the token (D7). */
export function orderHandlers({ db, pager, claimLinks, offerTokens }: RouteContext): GroupHandlers<Contract['orders']> {
  return {
    async list({ query, req }) {
      return { status: 200, body: await listOrders(db, pager, storeOf(req), query) };
    },
    async upsert({ params, body, req }) {
      const storeId = storeOf(req);
      const { protectionOffer, ...order } = body;
      // D55: the offer's token is checked before anything is written.
      const offer = verifiedOffer(offerTokens, storeId, protectionOffer);
      await upsertOrder(db, storeId, params.sourceOrderId, order, offer);
      return { status: 200, body: OK };
    },
    async get({ params, req }) {
      return { status: 200, body: await readOrder(db, storeOf(req), params.sourceOrderId) };
    },
    async remove({ params, req }) {
      await deleteOrder(db, storeOf(req), params.sourceOrderId);
      return { status: 200, body: OK };
    },
    async listClaims({ params, req }) {
      return { status: 200, body: await readOrderClaims(db, storeOf(req), params.sourceOrderId, claimLinks) };
    },
    async listFulfillments({ params, req }) {
      return { status: 200, body: await listFulfillments(db, storeOf(req), params.sourceOrderId) };
    },
    async upsertFulfillment({ params, body, req }) {
      await upsertFulfillment(db, storeOf(req), params.sourceOrderId, params.sourceFulfillmentId, body);
      return { status: 200, body: OK };
    },
    async cancelFulfillment({ params, req }) {
      await cancelFulfillment(db, storeOf(req), params.sourceOrderId, params.sourceFulfillmentId);
      return { status: 200, body: OK };
    },
  };
}
