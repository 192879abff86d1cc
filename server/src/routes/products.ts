import type { Contract } from '@protection-service/contract';
import {
  addChild,
  deleteProduct,
  readProductFamily,
  removeFromBundle,
  upsertProduct,
} from '../domain/commerce/products';
import { storeOf } from '../http/caller';
import { badRequest, notFound } from '../http/errors';
import type { GroupHandlers, RouteContext } from './context';

const OK = { data: { status: 'ok' } } as const;

/** The product catalogue (D21), answered in the D1 envelope; the store comes from the token (D7). */
export function productHandlers({ db }: RouteContext): GroupHandlers<Contract['products']> {
  return {
    async get({ params, req }) {
      const family = await readProductFamily(db, storeOf(req), params.productId);
      if (!family) throw notFound('product not found');
      return { status: 200, body: { data: family } };
    },
    async upsert({ params, body, req }) {
      if (!(await upsertProduct(db, storeOf(req), params.productId, body))) {
        throw badRequest('invalid request: body.name: required to create a product', [
          { path: 'body.name', message: 'required to create a product' },
        ]);
      }
      return { status: 200, body: OK };
    },
    async remove({ params, req }) {
      if (!(await deleteProduct(db, storeOf(req), params.productId))) throw notFound('product not found');
      return { status: 200, body: OK };
    },
    async addChild({ params, body, req }) {
      await addChild(db, storeOf(req), params.productId, body);
      return { status: 200, body: OK };
    },
    async removeChild({ params, req }) {
      if (!(await deleteProduct(db, storeOf(req), params.childId, params.productId))) {
        throw notFound('product not found');
      }
      return { status: 200, body: OK };
    },
    async removeFromBundle({ params, body, req }) {
      if (!(await removeFromBundle(db, storeOf(req), params.productId, body.productIds))) {
        throw notFound('product not found');
      }
      return { status: 200, body: OK };
    },
  };
}
