import { errors } from '../errors';
import { type RouteMeta, routeGroup } from '../meta';
import { data } from '../schemas/common';
import { ZDashboardTokens, ZLoginRequest, ZLoginResponse, ZRefreshRequest } from '../schemas/identity';
import { noScope } from '../scopes';

/** Dashboard user login and refresh (spec, D8). */
export const authRoutes = routeGroup({
  login: {
    method: 'POST',
    path: '/v1/auth/login',
    body: ZLoginRequest,
    responses: { 200: data(ZLoginResponse), ...errors(400, 401, 429) },
    summary: 'Dashboard login',
    description:
      'Logs a dashboard user in with e-mail and password and answers dashboard tokens and the user (D8). ' +
      'A failed login answers 401 with one message whether the e-mail is unknown or the password wrong; rate-limited per IP (D4).',
    metadata: {
      auth: 'public',
      scopes: noScope,
      body: 'data',
      source: 'spec',
      decisions: ['D4', 'D8'],
    } satisfies RouteMeta,
  },
  refresh: {
    method: 'POST',
    path: '/v1/auth/refresh',
    body: ZRefreshRequest,
    responses: { 200: data(ZDashboardTokens), ...errors(400, 401, 429) },
    summary: 'Refresh dashboard tokens',
    description:
      'Rotates a dashboard refresh token into new dashboard tokens; a retired refresh token answers 401 and revokes its family (D8, D12).',
    metadata: {
      auth: 'public',
      scopes: noScope,
      body: 'data',
      source: 'spec',
      decisions: ['D8', 'D12'],
    } satisfies RouteMeta,
  },
});
