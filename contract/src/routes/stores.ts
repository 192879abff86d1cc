import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { dashboardErrors } from '../errors';
import { routeGroup, routeMeta } from '../meta';
import { data, ZId } from '../schemas/common';
import { ZInstallation, ZSessionTokenMint, ZUninstalled } from '../schemas/identity';

const c = initContract();
const dashboardRoute = routeMeta('dashboard', 'data');

/** A store's app installations (D14) and embedded-app session tokens (D15). Dashboard JWT of a store member. */
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
      'Revokes every token of the installation, removes its webhook registration and soft-deletes its partner context; public reads fall back to merchant defaults (D14). ' +
      'Answers {data:{ok:true}} like the other deletes; 404 when the app is not installed.',
    metadata: dashboardRoute('D14', ['D1', 'D13']),
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
});
