import type { Contract } from '@protection-service/contract';
import { apiHealth } from '../domain/identity/api-health';
import { ownedApp, registerApp, rotateClientSecret, rotateWebhookSecret, updateApp } from '../domain/identity/apps';
import { createTestStore, listTestStores } from '../domain/identity/test-stores';
import { deleteTestStore } from '../domain/uninstall/uninstall';
import { listAppEvents, redeliver, sendTestEvent } from '../domain/webhooks/log';
import { checkWebhookUrl } from '../domain/webhooks/webhook-urls';
import { dashboardUserOf } from '../http/caller';
import type { GroupHandlers, RouteContext } from './context';

/**
 * App registration and secret rotation (D9), the event log and replay (D34), the app's test
 * stores (D45), for the app's
 * owner only: the domain answers another user's app exactly as a missing one (404).
 */
export function appHandlers({ db, config, pager, apiUsage }: RouteContext): GroupHandlers<Contract['apps']> {
  return {
    async create({ body, req }) {
      const { userId } = dashboardUserOf(req);
      if (body.webhookUrl !== undefined) checkWebhookUrl(body.webhookUrl, config.webhookAllowPrivateUrls);
      // Refused (400): an unknown scope, write_settings, a private app asking for pricing scopes (D9, D16).
      const created = await registerApp(db, config.secretKey, userId, body);
      return { status: 201, body: { data: created } };
    },
    async get({ params, req }) {
      const { userId } = dashboardUserOf(req);
      return { status: 200, body: { data: await ownedApp(db, params.clientId, userId) } };
    },
    async update({ params, body, req }) {
      const { userId } = dashboardUserOf(req);
      if (body.webhookUrl !== undefined) checkWebhookUrl(body.webhookUrl, config.webhookAllowPrivateUrls);
      if (typeof body.testWebhookUrl === 'string') {
        checkWebhookUrl(body.testWebhookUrl, config.webhookAllowPrivateUrls, 'testWebhookUrl');
      }
      return { status: 200, body: { data: await updateApp(db, params.clientId, userId, body) } };
    },
    async rotateSecret({ params, body, req }) {
      const { userId } = dashboardUserOf(req);
      // D45: `{"mode": "test"}` rotates the test client secret.
      const clientSecret = await rotateClientSecret(db, params.clientId, userId, body?.mode ?? 'live');
      return { status: 200, body: { data: { clientId: params.clientId, clientSecret } } };
    },
    async listEvents({ params, query, req }) {
      const page = await listAppEvents(db, pager, params.clientId, dashboardUserOf(req).userId, query);
      return { status: 200, body: { data: page } };
    },
    async redeliverEvent({ params, req }) {
      const event = await redeliver(db, params.clientId, dashboardUserOf(req).userId, params.eventId);
      return { status: 200, body: { data: event } };
    },
    async testWebhook({ params, body, req }) {
      const { userId } = dashboardUserOf(req);
      const result = await sendTestEvent(db, config, params.clientId, userId, body.topic, body.storeId);
      return { status: 200, body: { data: result } };
    },
    async rotateWebhookSecret({ params, req }) {
      const { userId } = dashboardUserOf(req);
      const rotated = await rotateWebhookSecret(db, config.secretKey, params.clientId, userId);
      const previousSecretExpiresAt = rotated.previousSecretExpiresAt.toISOString();
      return { status: 200, body: { data: { webhookSecret: rotated.webhookSecret, previousSecretExpiresAt } } };
    },
    async getApiHealth({ params, req }) {
      const { userId } = dashboardUserOf(req);
      // This process's counts of the last second first (D44); other processes write theirs every second.
      await apiUsage.flush();
      return { status: 200, body: { data: await apiHealth(db, params.clientId, userId) } };
    },
    async createTestStore({ params, body, req }) {
      const store = await createTestStore(db, dashboardUserOf(req).userId, params.clientId, body.name);
      return { status: 201, body: { data: store } };
    },
    async listTestStores({ params, req }) {
      return { status: 200, body: { data: await listTestStores(db, dashboardUserOf(req).userId, params.clientId) } };
    },
    async deleteTestStore({ params, req }) {
      await deleteTestStore(db, dashboardUserOf(req).userId, params.clientId, params.storeId);
      return { status: 200, body: { data: { ok: true } } };
    },
  };
}
