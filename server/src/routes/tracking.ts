import type { Contract } from '@protection-service/contract';
import { findFulfillment, readPackages } from '../domain/tracking/read';
import { addFulfillmentEvents, receiveInbound } from '../domain/tracking/receive';
import { readStoreTrackingSettings, readTrackingSettings, updateTrackingSettings } from '../domain/tracking/settings';
import { createTrackingSource, listTrackingSources, removeTrackingSource } from '../domain/tracking/sources';
import { dashboardUserOf, storeOf } from '../http/caller';
import type { GroupHandlers, RouteContext } from './context';

/** Shipment tracking (D54). */
export function trackingHandlers({ db, config }: RouteContext): GroupHandlers<Contract['tracking']> {
  const sourceSettings = { secretKey: config.secretKey, publicBaseUrl: config.publicBaseUrl };
  return {
    async addEvents({ params, body, req }) {
      const { sourceOrderId, sourceFulfillmentId } = params;
      return {
        status: 200,
        body: await addFulfillmentEvents(db, storeOf(req), sourceOrderId, sourceFulfillmentId, body),
      };
    },
    async get({ params, req }) {
      const f = await findFulfillment(db, storeOf(req), params.sourceOrderId, params.sourceFulfillmentId);
      return { status: 200, body: await readPackages(db, f.orderId, f.sourceFulfillmentId) };
    },
    async receiveInbound({ params, req }) {
      // The signature covers the bytes that arrived (req.rawBody), never the parsed body.
      await receiveInbound(db, config.secretKey, params.sourceId, req.rawBody, req.headers);
      return { status: 200, body: { status: 'ok' as const } };
    },
    async createSource({ params, body, req }) {
      const { userId } = dashboardUserOf(req);
      return {
        status: 201,
        body: { data: await createTrackingSource(db, sourceSettings, userId, params.storeId, body) },
      };
    },
    async listSources({ params, req }) {
      const { userId } = dashboardUserOf(req);
      return { status: 200, body: { data: await listTrackingSources(db, sourceSettings, userId, params.storeId) } };
    },
    async removeSource({ params, req }) {
      const { userId } = dashboardUserOf(req);
      await removeTrackingSource(db, userId, params.storeId, params.sourceId);
      return { status: 200, body: { data: { ok: true as const } } };
    },
    async getSettings({ params, req }) {
      const { userId } = dashboardUserOf(req);
      return { status: 200, body: { data: await readStoreTrackingSettings(db, userId, params.storeId) } };
    },
    async updateSettings({ params, body, req }) {
      const { userId } = dashboardUserOf(req);
      return { status: 200, body: { data: await updateTrackingSettings(db, userId, params.storeId, body) } };
    },
    async readSettings({ req }) {
      return { status: 200, body: { data: await readTrackingSettings(db, storeOf(req)) } };
    },
  };
}
