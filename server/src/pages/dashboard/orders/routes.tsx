// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import express, { Router } from 'express';
import { sendPage } from '../../html';
import { formKey, seeOther, withNotice } from '../forms';
import type { Dashboard } from '../handlers';
import { claimPath, DASHBOARD_PATH, orderPath } from '../paths';
import { claimOf } from './forms';
import { fileClaim, loadOrder, loadOrders } from './load';
import { OrderPage, OrdersPage } from './views';

const ORDERS = `${DASHBOARD_PATH}/stores/:storeId/orders`;
const ORDER = `${ORDERS}/:sourceOrderId`;
const FILE_CLAIM = `${ORDER}/claims`;

/**
 * The orders of a store (D50, D51): a search by order number or e-mail, newest first, 50 a
 * page; an order with its lines' claimable quantities, fulfillments and claims, and "File a
 * claim" for the shopper, which files through the API like the shopper's own claim would.
 */
export function orderPages(dashboard: Dashboard): Router {
  const router = Router();
  // An order has at most 500 lines (D18), three fields each.
  const form = express.urlencoded({ extended: false, limit: '256kb', parameterLimit: 1_600 });

  router.get(
    ORDERS,
    dashboard.page(async ({ req, res, session, store, api }) => {
      sendPage(res, 200, <OrdersPage session={session} store={store} list={await loadOrders(req, api)} />);
    }),
  );

  router.get(
    ORDER,
    dashboard.page(async ({ req, res, session, store, api }) => {
      const view = await loadOrder(req, api);
      sendPage(res, 200, <OrderPage session={session} store={store} view={view} notice={req.query.notice} />);
    }),
  );

  router.post(
    FILE_CLAIM,
    form,
    dashboard.form(
      (req) => orderPath(String(req.params.storeId), String(req.params.sourceOrderId)),
      async ({ req, res, store, api, body }) => {
        const sourceOrderId = String(req.params.sourceOrderId);
        const back = orderPath(store.id, sourceOrderId);
        const claim = claimOf(body);
        if (!claim) return seeOther(res, withNotice(back, 'noIssue'));
        const { claimId, replayed } = await fileClaim(api, sourceOrderId, claim, formKey(body));
        seeOther(res, withNotice(claimId ? claimPath(store.id, claimId) : back, replayed ? 'replayed' : 'claimFiled'));
      },
    ),
  );
  return router;
}
