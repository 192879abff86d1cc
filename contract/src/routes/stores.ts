import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { dashboardErrors } from '../errors';
import { routeGroup, routeMeta } from '../meta';
import { ZAuditEventConnection, ZAuditEventsParams, ZAuditEventsQuery } from '../schemas/audit';
import { data, ZId } from '../schemas/common';
import { ZInstallation, ZSessionTokenMint, ZStaffToken, ZUninstalled } from '../schemas/identity';
import { ZMerchantSettings, ZMerchantSettingsUpdate } from '../schemas/settings';

const c = initContract();
const dashboardRoute = routeMeta('dashboard', 'data');

/**
 * A store's app installations (D14), embedded-app session tokens (D15), staff tokens (D49)
 * and the merchant's write of its default settings (D53). Dashboard JWT of a store member.
 */
export const storeRoutes = routeGroup({
  listInstallations: {
    method: 'GET',
    path: '/v1/stores/:storeId/installations',
    pathParams: z.object({ storeId: ZId }),
    responses: { 200: data(z.array(ZInstallation)), ...dashboardErrors },
    summary: "List the store's installations",
    description: 'The apps installed on the store, past installations included with uninstalledAt set (D14).',
    metadata: dashboardRoute('D14', ['D7']),
  },
  uninstall: {
    method: 'DELETE',
    path: '/v1/stores/:storeId/installations/:clientId',
    pathParams: z.object({ storeId: ZId, clientId: ZId }),
    responses: { 200: data(ZUninstalled), ...dashboardErrors },
    summary: 'Uninstall an app',
    description:
      'An owner or admin of the store only (others 403, D49). Revokes every token of the installation, removes its webhook registration and soft-deletes its partner context; public reads fall back to merchant defaults (D14). ' +
      'Answers {data:{ok:true}} like the other deletes; 404 when the app is not installed.',
    metadata: dashboardRoute('D14', ['D1', 'D13', 'D49']),
  },
  mintSessionToken: {
    method: 'POST',
    path: '/v1/stores/:storeId/apps/:clientId/session-token',
    pathParams: z.object({ storeId: ZId, clientId: ZId }),
    body: c.noBody(),
    responses: { 200: data(ZSessionTokenMint), ...dashboardErrors },
    summary: 'Mint an embedded-app session token',
    description:
      'Mints the HS256 session token for the embedded app of an active installation, valid 60 seconds, signed with a per-app key (D15).',
    metadata: dashboardRoute('D15'),
  },
  mintStaffToken: {
    method: 'POST',
    path: '/v1/stores/:storeId/staff-tokens',
    pathParams: z.object({ storeId: ZId }),
    body: c.noBody(),
    responses: { 200: data(ZStaffToken), ...dashboardErrors },
    summary: 'Mint a staff token',
    description:
      "Mints an access token for the signed-in member on the store: `svc_at_…` (`svc_at_test_…` on a test store), living at most 5 minutes, with the scopes of the member's role, " +
      "accepted by the token routes like an app's and refused by the same scope checks. What it changes is recorded as the member's act. " +
      'A role change, a removal or the end of the dashboard session makes it fail (401) within a second. A store the user is not a member of answers 404 (D7).',
    metadata: dashboardRoute('D49', ['D7', 'D13', 'D16', 'D45']),
  },
  updateSettings: {
    method: 'PATCH',
    path: '/v1/stores/:storeId/settings',
    pathParams: z.object({ storeId: ZId }),
    body: ZMerchantSettingsUpdate,
    responses: { 200: data(ZMerchantSettings), ...dashboardErrors },
    summary: "Write the store's default settings",
    description:
      "Writes the merchant default settings with the limits of the settings fields: sparse, omitted fields keep their value, null answers 400. Answers the settings as GET /v2/settings reads them, with updatedByApplicationId null (a merchant's write). " +
      'An owner or admin of the store only (others 403, D49); a store the user is not a member of answers 404 (D7).',
    metadata: dashboardRoute('D53', ['D7', 'D26', 'D49']),
  },
  listAuditEvents: {
    method: 'GET',
    path: '/v1/stores/:storeId/audit-events',
    pathParams: ZAuditEventsParams,
    query: ZAuditEventsQuery,
    responses: { 200: data(ZAuditEventConnection), ...dashboardErrors },
    summary: "List the store's audit log",
    description:
      'Who did what in the store (D53), newest first, cursor-paged as the claim list (D24): sign-ins, password changes, members and roles, settings and pricing changes with before and after, installs and uninstalls, claim decisions, notes and exports, each with its actor, target, time, IP address and user agent. ' +
      'An owner or admin of the store only (others 403, D49); a store the user is not a member of answers 404 (D7).',
    metadata: dashboardRoute('D53', ['D7', 'D24', 'D49']),
  },
});
