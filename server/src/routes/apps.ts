import type { Contract } from '@protection-service/contract';
import { listAppEvents, redeliver, sendTestEvent } from '../domain/events/log';
import { webhookUrlProblem } from '../domain/events/webhook-urls';
import { findOwnedApp, registerApp, rotateClientSecret, rotateWebhookSecret } from '../domain/identity/apps';
import { badRequest, notFound } from '../http/errors';
import { dashboardUserOf } from './caller';
import type { GroupHandlers, RouteContext } from './context';

/**
 * App registration and secret rotation (D9), the event log and replay (D34). An app of another
 * user answers exactly what a missing app answers (404).
 */
export function appHandlers({ db, config, pager }: RouteContext): GroupHandlers<Contract['apps']> {
  /** The owner's app, or 404 (D7, D34: only the app's owner sees its events). */
  const ownApp = async (clientId: string, userId: string) => {
    const app = await findOwnedApp(db, clientId, userId);
    if (!app) throw notFound('app not found');
    return app;
  };
  return {
    async create({ body, req }) {
      const { userId } = dashboardUserOf(req);
      if (body.webhookUrl !== undefined) {
        const problem = webhookUrlProblem(body.webhookUrl, config.webhookAllowPrivateUrls);
        if (problem) throw badRequest(problem, [{ path: 'body.webhookUrl', message: problem }]);
      }
      // Refused (400): an unknown scope, write_settings, a private app asking for pricing scopes (D9, D16).
      const created = await registerApp(db, config.secretKey, userId, body);
      return { status: 201, body: { data: created } };
    },
    async get({ params, req }) {
      const { userId } = dashboardUserOf(req);
      const app = await findOwnedApp(db, params.clientId, userId);
      if (!app) throw notFound('app not found');
      return { status: 200, body: { data: app } };
    },
    async rotateSecret({ params, req }) {
      const { userId } = dashboardUserOf(req);
      const clientSecret = await rotateClientSecret(db, params.clientId, userId);
      if (!clientSecret) throw notFound('app not found');
      return { status: 200, body: { data: { clientId: params.clientId, clientSecret } } };
    },
    async listEvents({ params, query, req }) {
      await ownApp(params.clientId, dashboardUserOf(req).userId);
      const page = await listAppEvents(db, pager, params.clientId, query);
      return { status: 200, body: { data: page } };
    },
    async redeliverEvent({ params, req }) {
      await ownApp(params.clientId, dashboardUserOf(req).userId);
      const event = await redeliver(db, params.clientId, params.eventId);
      return { status: 200, body: { data: event } };
    },
    async testWebhook({ params, body, req }) {
      await ownApp(params.clientId, dashboardUserOf(req).userId);
      const result = await sendTestEvent(db, config, params.clientId, body.topic, body.storeId);
      return { status: 200, body: { data: result } };
    },
    async rotateWebhookSecret({ params, req }) {
      const { userId } = dashboardUserOf(req);
      const rotated = await rotateWebhookSecret(db, config.secretKey, params.clientId, userId);
      if (!rotated) throw notFound('app not found');
      const previousSecretExpiresAt = rotated.previousSecretExpiresAt.toISOString();
      return { status: 200, body: { data: { webhookSecret: rotated.webhookSecret, previousSecretExpiresAt } } };
    },
  };
}
