import type { Contract } from '@protection-service/contract';
import {
  addChild,
  deleteProduct,
  readProductFamily,
  removeFromBundle,
  upsertProduct,
} from '../domain/commerce/products';
import { storeOf } from '../http/caller';
import type { GroupHandlers, RouteContext } from './context';

const OK = { data: { status: 'ok' } } as const;

/** The product catalogue (D21), answered in the D1 envelope; the store comes from the token (D7). */
export function productHandlers({ db }: RouteContext): GroupHandlers<Contract['products']> {
  return {
    async get({ params, req }) {
      return { status: 200, body: { data: await readProductFamily(db, storeOf(req), params.productId) } };
    },
    async upsert({ params, body, req }) {
      await upsertProduct(db, storeOf(req), params.productId, body);
      return { status: 200, body: OK };
    },
    async remove({ params, req }) {
      await deleteProduct(db, storeOf(req), params.productId);
      return { status: 200, body: OK };
    },
    async addChild({ params, body, req }) {
      await addChild(db, storeOf(req), params.productId, body);
      return { status: 200, body: OK };
    },
    async removeChild({ params, req }) {
      await deleteProduct(db, storeOf(req), params.childId, params.productId);
      return { status: 200, body: OK };
    },
    async removeFromBundle({ params, body, req }) {
      await removeFromBundle(db, storeOf(req), params.productId, body.productIds);
      return { status: 200, body: OK };
    },
  };
}
