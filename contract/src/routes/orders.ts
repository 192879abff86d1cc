import { z } from 'zod';
import { tokenErrors } from '../errors';
import { routeGroup, routeMeta } from '../meta';
import { ZClaim } from '../schemas/claims';
import { ZId, ZStatusOk } from '../schemas/common';
import {
  ZFulfillment,
  ZFulfillmentWrite,
  ZOrder,
  ZOrderConnection,
  ZOrderListQuery,
  ZOrderWrite,
} from '../schemas/orders';
import { anyOf } from '../scopes';

const tokenRoute = routeMeta('token', 'plain');

const ZOrderPath = z.object({ sourceOrderId: ZId });
const ZFulfillmentPath = z.object({ sourceOrderId: ZId, sourceFulfillmentId: ZId });

/** Orders and their fulfillments (spec "Orders", D18-D20). */
export const orderRoutes = routeGroup({
  list: {
    method: 'GET',
    path: '/v1/orders',
    query: ZOrderListQuery,
    responses: { 200: ZOrderConnection, ...tokenErrors },
    summary: 'List orders',
    description:
      "Cursor-paged list of the store's live orders, newest first (`createdAt` then `id`, keyset paging, D24): " +
      '`first` (1-250, default 50), `after`, `last`, `before`, filtered by `q` (the exact order number or ' +
      "customer's e-mail), `createdAtMin` and `createdAtMax` (D51). Line items carry their `claimableQuantity` (D39).",
    metadata: tokenRoute(anyOf('order:read', 'order:update'), 'D51', ['D24', 'D39']),
  },
  upsert: {
    method: 'PUT',
    path: '/v1/orders/:sourceOrderId',
    pathParams: ZOrderPath,
    body: ZOrderWrite,
    responses: { 200: ZStatusOk, ...tokenErrors },
    summary: 'Create or replace an order',
    description:
      'Creates the order or replaces it whole; omitted optional fields become null (D18). ' +
      'Answers 404 when `originalSourceOrderId` names an unknown order. Gaining or losing ' +
      'protection (premiumPaid > 0 and no policyCancelledAt) emits `protection/added` or `protection/removed` (D19).',
    metadata: tokenRoute(anyOf('order:update'), 'spec', ['D18', 'D19']),
  },
  get: {
    method: 'GET',
    path: '/v1/orders/:sourceOrderId',
    pathParams: ZOrderPath,
    responses: { 200: ZOrder, ...tokenErrors },
    summary: 'Get an order',
    description:
      'Answers the stored order plus `id`, `storeId`, `protection` ({status, policyId}), ' +
      '`createdAt` and `updatedAt` (D18). A deleted order answers 404. Line items carry their ' +
      '`claimableQuantity`: what a new claim may still ask of them (D39, D51).',
    metadata: tokenRoute(anyOf('order:read', 'order:update'), 'D18', ['D19', 'D39', 'D51']),
  },
  remove: {
    method: 'DELETE',
    path: '/v1/orders/:sourceOrderId',
    pathParams: ZOrderPath,
    responses: { 200: ZStatusOk, ...tokenErrors },
    summary: 'Delete an order',
    description:
      'Soft-deletes the order: later reads answer 404 and the id may be PUT again (D18). ' +
      'Active protection is removed and `protection/removed` emitted (D19).',
    metadata: tokenRoute(anyOf('order:update'), 'spec', ['D18', 'D19']),
  },
  listClaims: {
    method: 'GET',
    path: '/v1/orders/:sourceOrderId/claims',
    pathParams: ZOrderPath,
    responses: { 200: z.array(ZClaim), ...tokenErrors },
    summary: "List an order's claims",
    description: 'Answers the array of claim records filed against the order; 404 when the order is unknown.',
    metadata: tokenRoute(anyOf('claim:read', 'claim:update', 'claim:manage'), 'spec', ['D24']),
  },
  listFulfillments: {
    method: 'GET',
    path: '/v1/orders/:sourceOrderId/fulfillments',
    pathParams: ZOrderPath,
    responses: { 200: z.array(ZFulfillment), ...tokenErrors },
    summary: "List an order's fulfillments",
    description:
      'Answers the array of fulfillments of the order, cancelled ones included with `cancelledAt` set (D20); ' +
      '404 when the order is unknown.',
    metadata: tokenRoute(anyOf('order:read', 'order:update'), 'spec', ['D20']),
  },
  upsertFulfillment: {
    method: 'PUT',
    path: '/v1/orders/:sourceOrderId/fulfillments/:sourceFulfillmentId',
    pathParams: ZFulfillmentPath,
    body: ZFulfillmentWrite,
    responses: { 200: ZStatusOk, ...tokenErrors },
    summary: 'Create or replace a fulfillment',
    description:
      "Creates or replaces one fulfillment of the order; the body carries the spec's fields but " +
      '`sourceFulfillmentId`, which is the path (D20). `createdAt`/`updatedAt` are set when absent; ' +
      '404 when the order is unknown.',
    metadata: tokenRoute(anyOf('order:update'), 'D20'),
  },
  cancelFulfillment: {
    method: 'DELETE',
    path: '/v1/orders/:sourceOrderId/fulfillments/:sourceFulfillmentId',
    pathParams: ZFulfillmentPath,
    responses: { 200: ZStatusOk, ...tokenErrors },
    summary: 'Cancel a fulfillment',
    description:
      'Marks the fulfillment cancelled by setting `cancelledAt`; it stays in the list (D20). ' +
      '404 when the order or fulfillment is unknown.',
    metadata: tokenRoute(anyOf('order:update'), 'spec', ['D20']),
  },
});
