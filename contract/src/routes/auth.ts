import { errors } from '../errors';
import { routeGroup, routeMeta } from '../meta';
import { data } from '../schemas/common';
import { ZDashboardTokens, ZLoginRequest, ZLoginResponse, ZRefreshRequest } from '../schemas/identity';

const publicRoute = routeMeta('public', 'data');

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
    metadata: publicRoute('spec', ['D4', 'D8']),
  },
  refresh: {
    method: 'POST',
    path: '/v1/auth/refresh',
    body: ZRefreshRequest,
    responses: { 200: data(ZDashboardTokens), ...errors(400, 401, 429) },
    summary: 'Refresh dashboard tokens',
    description:
      'Rotates a dashboard refresh token into new dashboard tokens; a retired refresh token answers 401 and revokes its family (D8, D12).',
    metadata: publicRoute('spec', ['D8', 'D12']),
  },
});
