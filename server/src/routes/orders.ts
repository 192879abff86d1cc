import type { Contract } from '@protection-service/contract';
import { readOrderClaims } from '../domain/claims/read';
import { cancelFulfillment, listFulfillments, upsertFulfillment } from '../domain/commerce/fulfillments';
import { deleteOrder, readOrder, upsertOrder } from '../domain/commerce/orders';
import { storeOf } from '../http/caller';
import { notFound } from '../http/errors';
import type { GroupHandlers, RouteContext } from './context';

const OK = { status: 'ok' } as const;

/** Orders, their protection policies and fulfillments (D18-D20); the store comes from the token (D7). */
export function orderHandlers({ db, claimLinks }: RouteContext): GroupHandlers<Contract['orders']> {
  return {
    async upsert({ params, body, req }) {
      await upsertOrder(db, storeOf(req), params.sourceOrderId, body);
      return { status: 200, body: OK };
    },
    async get({ params, req }) {
      const order = await readOrder(db, storeOf(req), params.sourceOrderId);
      if (!order) throw notFound('order not found');
      return { status: 200, body: order };
    },
    async remove({ params, req }) {
      await deleteOrder(db, storeOf(req), params.sourceOrderId);
      return { status: 200, body: OK };
    },
    async listClaims({ params, req }) {
      const claims = await readOrderClaims(db, storeOf(req), params.sourceOrderId, claimLinks);
      if (!claims) throw notFound('order not found');
      return { status: 200, body: claims };
    },
    async listFulfillments({ params, req }) {
      const list = await listFulfillments(db, storeOf(req), params.sourceOrderId);
      if (!list) throw notFound('order not found');
      return { status: 200, body: list };
    },
    async upsertFulfillment({ params, body, req }) {
      await upsertFulfillment(db, storeOf(req), params.sourceOrderId, params.sourceFulfillmentId, body);
      return { status: 200, body: OK };
    },
    async cancelFulfillment({ params, req }) {
      const found = await cancelFulfillment(db, storeOf(req), params.sourceOrderId, params.sourceFulfillmentId);
      if (!found) throw notFound('fulfillment not found');
      return { status: 200, body: OK };
    },
  };
}
