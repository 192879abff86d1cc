import { z } from 'zod';
import { dashboardErrors, providerErrors, tokenErrors, ZError } from '../errors';
import { routeGroup, routeMeta } from '../meta';
import { data, ZDeleted, ZId, ZIdempotencyHeaders, ZStatusOk } from '../schemas/common';
import {
  ZTrackingEventsBody,
  ZTrackingInboundPath,
  ZTrackingPackage,
  ZTrackingSettings,
  ZTrackingSettingsUpdate,
  ZTrackingSource,
  ZTrackingSourceCreate,
  ZTrackingSourceCreated,
} from '../schemas/tracking';
import { anyOf } from '../scopes';

const tokenRoute = routeMeta('token', 'plain');
const tokenDataRoute = routeMeta('token', 'data');
const providerRoute = routeMeta('provider', 'plain');
const dashboardRoute = routeMeta('dashboard', 'data');

const ZFulfillmentPath = z.object({ sourceOrderId: ZId, sourceFulfillmentId: ZId });
const ZStorePath = z.object({ storeId: ZId });
const MANAGERS =
  ' An owner or admin of the store only (others 403, D49); a store the user is not a member of answers 404 (D7).';
const PACKAGE =
  'A package is one tracking number of the fulfillment: `{trackingNumber, carrier, status, subStatus, statusAt, lastScanAt, ' +
  'estimatedDeliveryAt, deliveredAt, events, decisions}`, events and decisions newest first (D54).';

/** Shipment tracking (D54): the three ways events come in, the store's sources and rules. */
export const trackingRoutes = routeGroup({
  addEvents: {
    method: 'POST',
    path: '/v1/orders/:sourceOrderId/fulfillments/:sourceFulfillmentId/tracking-events',
    pathParams: ZFulfillmentPath,
    headers: ZIdempotencyHeaders,
    body: ZTrackingEventsBody,
    responses: { 200: ZTrackingPackage, ...tokenErrors, 409: ZError },
    summary: "Add a package's tracking events",
    description:
      'Adds at most 100 events of one tracking number of the fulfillment (404 when the order or fulfillment is unknown). ' +
      'An event already kept (same `id`, or without one the same time, status and description) changes nothing; the state follows ' +
      'the events by when they happened, never by arrival, and `delivered`, `lost` and `return_to_sender` never fall back to an ' +
      'earlier-dated status. A change of status or subStatus emits `tracking/updated`. Answers the package. Accepts an Idempotency-Key (D33). ' +
      PACKAGE,
    metadata: tokenRoute(anyOf('order:update'), 'D54', ['D20', 'D33']),
  },
  get: {
    method: 'GET',
    path: '/v1/orders/:sourceOrderId/fulfillments/:sourceFulfillmentId/tracking',
    pathParams: ZFulfillmentPath,
    responses: { 200: z.array(ZTrackingPackage), ...tokenErrors },
    summary: "Read a fulfillment's packages",
    description: `The packages of the fulfillment with their events and the rules' decisions; 404 when the order or fulfillment is unknown. ${PACKAGE}`,
    metadata: tokenRoute(anyOf('order:read', 'order:update'), 'D54', ['D20']),
  },
  receiveInbound: {
    method: 'POST',
    path: '/v1/tracking/inbound/:sourceId',
    pathParams: ZTrackingInboundPath,
    body: z.record(z.string(), z.unknown()).describe("The provider's payload, verified over the bytes that arrived"),
    responses: { 200: ZStatusOk, ...providerErrors },
    summary: "Receive a carrier aggregator's webhook",
    description:
      'Where a tracking source posts (its `inboundUrl`). No bearer token: the signature is checked over the raw bytes in constant time ' +
      '(`aftership`: `aftership-hmac-sha256`, base64 HMAC-SHA256 of the body; `easypost`: `X-Hmac-Signature: hmac-sha256-hex=<hex>`; ' +
      '`ship24`: `Authorization: Bearer <secret>`). A bad or missing signature and an unknown source answer the same 401. ' +
      'A valid delivery answers 200 even when no package matches: a number not yet known is kept 14 days and bound when a fulfillment ' +
      "with it arrives. Unknown provider codes become `unknown`, never a 400; a body that is not the provider's shape answers 400 (D54).",
    metadata: providerRoute('D54', ['D4']),
  },
  createSource: {
    method: 'POST',
    path: '/v1/stores/:storeId/tracking-sources',
    pathParams: ZStorePath,
    body: ZTrackingSourceCreate,
    responses: { 201: data(ZTrackingSourceCreated), ...dashboardErrors },
    summary: 'Register a tracking source',
    description:
      'Registers a carrier aggregator (`aftership`, `easypost`, `ship24`) with its webhook secret; answers `{id, provider, inboundUrl}` to ' +
      'give the provider. The secret is never answered again; when `secret` is omitted the service makes one and answers it here, once (D54).' +
      MANAGERS,
    metadata: dashboardRoute('D54', ['D7', 'D49', 'D53']),
  },
  listSources: {
    method: 'GET',
    path: '/v1/stores/:storeId/tracking-sources',
    pathParams: ZStorePath,
    responses: { 200: data(z.array(ZTrackingSource)), ...dashboardErrors },
    summary: "List the store's tracking sources",
    description: `The registered sources, oldest first, never with their secrets (D54).${MANAGERS}`,
    metadata: dashboardRoute('D54', ['D7', 'D49']),
  },
  removeSource: {
    method: 'DELETE',
    path: '/v1/stores/:storeId/tracking-sources/:sourceId',
    pathParams: z.object({ storeId: ZId, sourceId: ZId }),
    responses: { 200: data(ZDeleted), ...dashboardErrors },
    summary: 'Remove a tracking source',
    description: `Its deliveries then answer 401 like an unknown source's; 404 when the store has no such source (D54).${MANAGERS}`,
    metadata: dashboardRoute('D54', ['D1', 'D7', 'D49', 'D53']),
  },
  getSettings: {
    method: 'GET',
    path: '/v1/stores/:storeId/tracking-settings',
    pathParams: ZStorePath,
    responses: { 200: data(ZTrackingSettings), ...dashboardErrors },
    summary: "Read the store's tracking rules",
    description: `The rules of D54: mode (default \`off\`), the lost, delayed and claim-window days and the requested resolution.${MANAGERS}`,
    metadata: dashboardRoute('D54', ['D7', 'D49']),
  },
  updateSettings: {
    method: 'PUT',
    path: '/v1/stores/:storeId/tracking-settings',
    pathParams: ZStorePath,
    body: ZTrackingSettingsUpdate,
    responses: { 200: data(ZTrackingSettings), ...dashboardErrors },
    summary: "Write the store's tracking rules",
    description: `Writes the fields sent (omitted ones keep their value, null answers 400) and answers the whole rules; the change is in the audit log (D53, D54).${MANAGERS}`,
    metadata: dashboardRoute('D54', ['D7', 'D49', 'D53']),
  },
  readSettings: {
    method: 'GET',
    path: '/v2/settings/tracking',
    responses: { 200: data(ZTrackingSettings), ...tokenErrors },
    summary: "Read the store's tracking rules",
    description:
      "The store's tracking rules as the merchant set them (read only for partners, D54). Wrapped in `data`.",
    metadata: tokenDataRoute(anyOf('store:read'), 'D54', ['D1']),
  },
});
