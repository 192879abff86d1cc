import type { Contract } from '@protection-service/contract';
import { AppError, findOwnedApp, registerApp, rotateClientSecret } from '../domain/apps';
import { webhookUrlProblem } from '../domain/webhook-urls';
import { badRequest, notFound } from '../http/errors';
import { dashboardUserOf } from './caller';
import type { GroupHandlers, RouteContext } from './index';

/**
 * App registration and secret rotation (D9). An app of another user answers exactly what a
 * missing app answers (404). The D34 event routes are not written yet (501).
 */
export function appHandlers({ db, config }: RouteContext): GroupHandlers<Contract['apps']> {
  return {
    async create({ body, req }) {
      const { userId } = dashboardUserOf(req);
      if (body.webhookUrl !== undefined) {
        const problem = webhookUrlProblem(body.webhookUrl, config.webhookAllowPrivateUrls);
        if (problem) throw badRequest(problem, [{ path: 'body.webhookUrl', message: problem }]);
      }
      try {
        const created = await registerApp(db, config.secretKey, userId, body);
        return { status: 201, body: { data: created } };
      } catch (err) {
        // Unknown scope, write_settings, or a private app asking for pricing scopes (D9, D16).
        if (err instanceof AppError)
          throw badRequest(err.message, [{ path: 'body.requestedScopes', message: err.message }]);
        throw err;
      }
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
  };
}
