import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { dashboardErrors, ZError } from '../errors';
import { routeGroup, routeMeta } from '../meta';
import { data, ZDeleted, ZId } from '../schemas/common';
import {
  ZApiHealth,
  ZApp,
  ZAppEvent,
  ZAppEventConnection,
  ZAppEventsQuery,
  ZCreateAppRequest,
  ZCreatedApp,
  ZCreatedTestStore,
  ZCreateTestStoreRequest,
  ZRotateClientSecretRequest,
  ZRotatedClientSecret,
  ZRotatedWebhookSecret,
  ZTestStore,
  ZUpdateAppRequest,
  ZWebhookTestRequest,
  ZWebhookTestResult,
} from '../schemas/identity';

const c = initContract();
const dashboardRoute = routeMeta('dashboard', 'data');

const ZAppParams = z.object({ clientId: ZId });
const ZAppEventParams = z.object({ clientId: ZId, eventId: ZId });
const ZTestStoreParams = z.object({ clientId: ZId, storeId: ZId });

/**
 * App registration (D9) and the app's webhook event log (D34). Dashboard JWT of the app's
 * owner; another user's app answers 404.
 */
export const appRoutes = routeGroup({
  create: {
    method: 'POST',
    path: '/v1/apps',
    body: ZCreateAppRequest,
    responses: { 201: data(ZCreatedApp), ...dashboardErrors },
    summary: 'Register an app',
    description:
      'Registers an app owned by the dashboard user; the answer shows clientId, clientSecret, testClientSecret and webhookSecret this once (D9, D45). ' +
      "The test client secret works only for grants on the app's test stores, the client secret only on live stores (D45). " +
      'Pricing scopes are admin-gated: never granted to private apps, to public apps only after operator approval (D9).',
    metadata: dashboardRoute('D9', ['D5', 'D16', 'D32']),
  },
  get: {
    method: 'GET',
    path: '/v1/apps/:clientId',
    pathParams: ZAppParams,
    responses: { 200: data(ZApp), ...dashboardErrors },
    summary: 'Read an app',
    description: "The app's registration, without secrets, including whether its pricing scopes are approved (D9).",
    metadata: dashboardRoute('D9'),
  },
  update: {
    method: 'PATCH',
    path: '/v1/apps/:clientId',
    pathParams: ZAppParams,
    body: ZUpdateAppRequest,
    responses: { 200: data(ZApp), ...dashboardErrors },
    summary: 'Change an app',
    description:
      'Changes any of the name, redirect URIs, webhook URL, test webhook URL, webhook topics and the pinned API version; ' +
      'fields left out stay as they are and `testWebhookUrl: null` clears it. Answers the app as reading it does (D44, D9). ' +
      'Subscribing to topics needs a webhook URL or a test webhook URL.',
    metadata: dashboardRoute('D44', ['D9', 'D32', 'D45']),
  },
  rotateSecret: {
    method: 'POST',
    path: '/v1/apps/:clientId/rotate-secret',
    pathParams: ZAppParams,
    body: ZRotateClientSecretRequest.optional(),
    responses: { 200: data(ZRotatedClientSecret), ...dashboardErrors },
    summary: 'Rotate the client secret',
    description:
      'Issues a new client secret, shown once; the previous secret stops working at once (D9, D5). ' +
      'With `{"mode": "test"}` it rotates the test client secret instead (D45).',
    metadata: dashboardRoute('D9', ['D5', 'D45']),
  },
  listEvents: {
    method: 'GET',
    path: '/v1/apps/:clientId/events',
    pathParams: ZAppParams,
    query: ZAppEventsQuery,
    responses: { 200: data(ZAppEventConnection), ...dashboardErrors },
    summary: "List the app's webhook events",
    description:
      "The app's events with their delivery attempts, cursor-paged as the claim list (D24) and filterable by status pending, delivered or failed (D34). " +
      'Each body is the one the app is sent: in the API version the app was pinned to when the event was recorded (D44).',
    metadata: dashboardRoute('D34', ['D24', 'D32']),
  },
  redeliverEvent: {
    method: 'POST',
    path: '/v1/apps/:clientId/events/:eventId/redeliver',
    pathParams: ZAppEventParams,
    body: c.noBody(),
    responses: { 200: data(ZAppEvent), ...dashboardErrors, 409: ZError },
    summary: 'Redeliver an event',
    description:
      'Queues the event for delivery again with the same id and body (D32) and answers it with status pending (D34). ' +
      '409 when the app has no webhook URL.',
    metadata: dashboardRoute('D34', ['D32']),
  },
  testWebhook: {
    method: 'POST',
    path: '/v1/apps/:clientId/webhooks/test',
    pathParams: ZAppParams,
    body: ZWebhookTestRequest,
    responses: { 200: data(ZWebhookTestResult), ...dashboardErrors, 409: ZError },
    summary: 'Send a sample webhook',
    description:
      "Sends one signed sample event of the topic for a store the app is installed on to the app's URL and reports the attempt (D34). " +
      'Not retried and not logged; 409 when the app has no webhook URL.',
    metadata: dashboardRoute('D34', ['D32']),
  },
  rotateWebhookSecret: {
    method: 'POST',
    path: '/v1/apps/:clientId/webhooks/rotate-secret',
    pathParams: ZAppParams,
    body: c.noBody(),
    responses: { 200: data(ZRotatedWebhookSecret), ...dashboardErrors },
    summary: 'Rotate the webhook secret',
    description:
      'Issues a new webhook secret, shown once; for 24 hours deliveries carry signatures of both secrets and x-webhook-secret carries the new one (D34).',
    metadata: dashboardRoute('D34', ['D5', 'D32']),
  },
  getApiHealth: {
    method: 'GET',
    path: '/v1/apps/:clientId/api-health',
    pathParams: ZAppParams,
    responses: { 200: data(ZApiHealth), ...dashboardErrors },
    summary: "Read the app's use of each API version",
    description:
      'For every dated API version, newest first: how many answers of versioned routes (errors included) the app got in it over the last 30 days, the last of them, and whether the version is deprecated with its sunset date (D44). ' +
      'Calls of the last second may not be counted yet.',
    metadata: dashboardRoute('D44'),
  },
  createTestStore: {
    method: 'POST',
    path: '/v1/apps/:clientId/test-stores',
    pathParams: ZAppParams,
    body: ZCreateTestStoreRequest,
    responses: { 201: data(ZCreatedTestStore), ...dashboardErrors, 409: ZError },
    summary: 'Create a test store',
    description:
      'Creates a test store owned by the dashboard user, with the app installed on all its requested scopes; pricing scopes need no ' +
      "approval on a test store and that grant never carries over to a live store (D45). Its domain is the name's slug with `.test`, " +
      'its livemode false for life. An app has at most 5 test stores: a sixth answers 409. For an app registered without a test ' +
      'client secret, the answer of its first test store shows one, once.',
    metadata: dashboardRoute('D45', ['D9', 'D10']),
  },
  listTestStores: {
    method: 'GET',
    path: '/v1/apps/:clientId/test-stores',
    pathParams: ZAppParams,
    responses: { 200: data(z.array(ZTestStore)), ...dashboardErrors },
    summary: "List the app's test stores",
    description: "The app's test stores, oldest first, without any secret (D45).",
    metadata: dashboardRoute('D45'),
  },
  deleteTestStore: {
    method: 'DELETE',
    path: '/v1/apps/:clientId/test-stores/:storeId',
    pathParams: ZTestStoreParams,
    responses: { 200: data(ZDeleted), ...dashboardErrors },
    summary: 'Delete a test store',
    description:
      'Removes the test store and everything in it: orders, claims, products, settings, events, mail, its installations and ' +
      'their tokens, which stop working within a second (D45, D13). A live store, or a test store of another app, answers 404.',
    metadata: dashboardRoute('D45', ['D13']),
  },
});
