import { dashboardErrors, errors, oauthErrors } from '../errors';
import { routeGroup, routeMeta } from '../meta';
import { data } from '../schemas/common';
import {
  ZApproveRequest,
  ZApproveResponse,
  ZAuthorizationServerMetadata,
  ZAuthorizeRequest,
  ZConsentPreview,
  ZRevokeRequest,
  ZRevokeResponse,
  ZSessionVerifyRequest,
  ZSessionVerifyResponse,
  ZTokenRequest,
  ZTokenResponse,
} from '../schemas/oauth';

const clientRoute = routeMeta('client', 'plain');
const publicRoute = routeMeta('public', 'plain');
const dashboardRoute = routeMeta('dashboard', 'data');

/** OAuth 2.0 and session routes (spec "OAuth and session", D10-D13, D15, D17). */
export const oauthRoutes = routeGroup({
  token: {
    method: 'POST',
    path: '/v1/oauth/token',
    body: ZTokenRequest,
    responses: { 200: ZTokenResponse, ...oauthErrors },
    summary: 'Issue tokens',
    description:
      'Exchanges an authorization code, a refresh token or client credentials for tokens (spec). ' +
      'Accepts JSON or application/x-www-form-urlencoded (where scopes are one space-separated `scope`), ' +
      'client credentials in the body or as HTTP Basic but never both; answers carry Cache-Control: no-store (D11). ' +
      'Refresh tokens rotate and a reused one revokes its family (D12).',
    metadata: clientRoute('spec', ['D2', 'D10', 'D11', 'D12']),
  },
  revoke: {
    method: 'POST',
    path: '/v1/oauth/revoke',
    body: ZRevokeRequest,
    responses: { 200: ZRevokeResponse, ...oauthErrors },
    summary: 'Revoke a token',
    description:
      'Revokes an access or refresh token (RFC 7009); answers 200 `{}` for an authenticated client whether or not ' +
      'the token was known, and revoking a refresh token revokes its access tokens (D13). ' +
      'Client credentials may come in the body or as HTTP Basic (D11).',
    metadata: clientRoute('spec', ['D2', 'D11', 'D13']),
  },
  sessionVerify: {
    method: 'POST',
    path: '/v1/oauth/session/verify',
    body: ZSessionVerifyRequest,
    responses: { 200: ZSessionVerifyResponse, ...errors(400, 401, 429) },
    summary: 'Verify an embedded-app session token',
    description:
      'Checks the session token signature, audience, expiry (5 s leeway) and that the installation is active, ' +
      'and answers who is using the embedded app (D15). Limited to 30 requests per minute per IP (spec, D4).',
    metadata: publicRoute('spec', ['D4', 'D15']),
  },
  authorize: {
    method: 'POST',
    path: '/v1/oauth/authorize',
    body: ZAuthorizeRequest,
    responses: { 200: data(ZConsentPreview), ...dashboardErrors },
    summary: 'Preview an app install',
    description:
      'Answers the consent preview for installing an app on a store the dashboard user belongs to: app, store, ' +
      'requested and grantable scopes (D10). The redirect URI must match a registered one exactly; only S256 PKCE is accepted.',
    metadata: dashboardRoute('spec', ['D9', 'D10', 'D16']),
  },
  approve: {
    method: 'POST',
    path: '/v1/oauth/authorize/approve',
    body: ZApproveRequest,
    responses: { 200: data(ZApproveResponse), ...dashboardErrors },
    summary: 'Approve an app install',
    description:
      'Creates or updates the installation and issues a single-use authorization code valid 10 minutes; ' +
      '`redirectUri` is the registered URI with `code` and `state` added (D10).',
    metadata: dashboardRoute('spec', ['D9', 'D10', 'D16']),
  },
  discovery: {
    method: 'GET',
    path: '/.well-known/oauth-authorization-server',
    responses: { 200: ZAuthorizationServerMetadata, ...errors(400, 429) },
    summary: 'Authorization server metadata',
    description: 'RFC 8414 metadata of the OAuth endpoints, scopes and methods (D17).',
    metadata: publicRoute('D17', ['D16']),
  },
});
