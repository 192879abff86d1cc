import { dashboardErrors, errors } from '../errors';
import { routeGroup, routeMeta } from '../meta';
import { data } from '../schemas/common';
import {
  ZDashboardTokens,
  ZLoginRequest,
  ZLoginResponse,
  ZPasswordChange,
  ZPasswordChanged,
  ZRefreshRequest,
} from '../schemas/identity';

const publicRoute = routeMeta('public', 'data');
const dashboardRoute = routeMeta('dashboard', 'data');

/** Dashboard user login and refresh (spec, D8), and the password (D49). */
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
  changePassword: {
    method: 'POST',
    path: '/v1/auth/password',
    body: ZPasswordChange,
    responses: { 200: data(ZPasswordChanged), ...dashboardErrors, ...errors(409) },
    summary: 'Change the password',
    description:
      "Changes the signed-in user's password (the new one at least 12 characters) and ends the user's other sessions: their dashboard tokens, refresh tokens and staff tokens fail within a second; " +
      'the session that asks stays signed in. A wrong current password answers 400 (at body.currentPassword) and changes nothing; 409 when another change of the password came first (D49).',
    metadata: dashboardRoute('D49', ['D8', 'D13']),
  },
});
