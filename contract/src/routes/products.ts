import { z } from 'zod';
import { tokenErrors, ZError } from '../errors';
import { routeGroup, routeMeta } from '../meta';
import { data, ZId, ZIdempotencyHeaders, ZStatusOk } from '../schemas/common';
import { ZBundleRemove, ZProductChildWrite, ZProductFamily, ZProductWrite } from '../schemas/products';
import { anyOf } from '../scopes';

const tokenRoute = routeMeta('token', 'data');

const ZProductPath = z.object({ productId: ZId });

/**
 * The product catalogue (spec "Products (v2)", D21). Success bodies are wrapped as
 * `{data: …}` (D1); deletes answer the spec's `{status: "ok"}` inside the envelope.
 */
export const productRoutes = routeGroup({
  get: {
    method: 'GET',
    path: '/v2/products/:productId',
    pathParams: ZProductPath,
    responses: { 200: data(ZProductFamily), ...tokenErrors },
    summary: 'Get a product and its children',
    description:
      'Answers `[product, ...its children]`, each with the read fields of the spec (D21), wrapped in `data`. ' +
      '404 when the product is unknown.',
    metadata: tokenRoute(anyOf('product:read', 'product:update'), 'spec', ['D1', 'D21']),
  },
  upsert: {
    method: 'PUT',
    path: '/v2/products/:productId',
    pathParams: ZProductPath,
    body: ZProductWrite,
    responses: { 200: data(ZStatusOk), ...tokenErrors },
    summary: 'Create or update a product',
    description:
      'Creates the product (name required, 400 otherwise) or updates the fields sent (D21). ' +
      '`productType` accepts FULL, SIMPLE and GROUPED.',
    metadata: tokenRoute(anyOf('product:update'), 'spec', ['D1', 'D21']),
  },
  remove: {
    method: 'DELETE',
    path: '/v2/products/:productId',
    pathParams: ZProductPath,
    responses: { 200: data(ZStatusOk), ...tokenErrors },
    summary: 'Delete a product',
    description: 'Removes the product and all its children (D21).',
    metadata: tokenRoute(anyOf('product:update'), 'spec', ['D1', 'D21']),
  },
  addChild: {
    method: 'POST',
    path: '/v2/products/:productId/children',
    pathParams: ZProductPath,
    headers: ZIdempotencyHeaders,
    body: ZProductChildWrite,
    responses: { 200: data(ZStatusOk), ...tokenErrors, 409: ZError },
    summary: 'Create a child product (variant)',
    description:
      'Creates a child of the product; `bundleProductIds` must name existing children (400 otherwise, D21). ' +
      'Accepts an `Idempotency-Key` (D33).',
    metadata: tokenRoute(anyOf('product:update'), 'spec', ['D1', 'D21', 'D33']),
  },
  removeChild: {
    method: 'DELETE',
    path: '/v2/products/:productId/children/:childId',
    pathParams: z.object({ productId: ZId, childId: ZId }),
    responses: { 200: data(ZStatusOk), ...tokenErrors },
    summary: 'Delete a child product',
    description: 'Removes one child of the product; a child of another parent answers 404 (D21).',
    metadata: tokenRoute(anyOf('product:update'), 'spec', ['D1', 'D21']),
  },
  removeFromBundle: {
    method: 'DELETE',
    path: '/v2/products/:productId/bundle/remove',
    pathParams: ZProductPath,
    body: ZBundleRemove,
    responses: { 200: data(ZStatusOk), ...tokenErrors },
    summary: 'Remove products from a bundle',
    description: "Drops the named ids from the product's bundle; the request carries a JSON body `{productIds}` (D21).",
    metadata: tokenRoute(anyOf('product:update'), 'spec', ['D1', 'D21']),
  },
});
