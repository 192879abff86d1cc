import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { tokenErrors, ZError } from '../errors';
import { routeGroup, routeMeta } from '../meta';
import { ZClaim } from '../schemas/claims';
import { ZId, ZIdempotencyHeaders, ZStatusOk } from '../schemas/common';
import {
  ZTestClaimAdvance,
  ZTestEventRecorded,
  ZTestEventRequest,
  ZTestMailbox,
  ZTestShopperMessage,
} from '../schemas/test-helpers';
import {
  ZTestTrackingEventsBody,
  ZTrackingEvaluateBody,
  ZTrackingEvaluation,
  ZTrackingPackage,
} from '../schemas/tracking';
import { anyOf, noScope, type ScopeRule } from '../scopes';

const c = initContract();
const tokenRoute = routeMeta('token', 'plain');
/** Every route here acts on test stores only (D45): the auth gate refuses live tokens. */
const testRoute = (scopes: ScopeRule, decisions?: readonly string[], source = 'D45') => ({
  ...tokenRoute(scopes, source, decisions),
  mode: 'test' as const,
});

const ZClaimPath = z.object({ claimId: ZId });
const TEST_ONLY = ' For test stores only: a live token answers 403 and nothing changes (D45).';
/** Every token POST accepts an Idempotency-Key (D33): another request under a used key answers 409. */
const KEYED = ' Accepts an `Idempotency-Key` (D33).';

/** The test helpers (D45), under `/v1/test_helpers/`. */
export const testHelperRoutes = routeGroup({
  advanceClaim: {
    method: 'POST',
    path: '/v1/test_helpers/claims/:claimId/advance',
    headers: ZIdempotencyHeaders,
    pathParams: ZClaimPath,
    body: ZTestClaimAdvance,
    responses: { 200: ZClaim, ...tokenErrors, 409: ZError },
    summary: 'Move a test claim to a state',
    description:
      'Moves the claim as the merchant would, through the same moves as the approve, deny and transition routes: the same ' +
      'events, store credits and e-mails (D22, D26). To APPROVED it takes the approve fields, to DENIED the deny fields, ' +
      'to any other state a transition note. A move the claim states forbid answers 409. Answers the claim as reading it does.' +
      TEST_ONLY +
      KEYED,
    metadata: testRoute(anyOf('claim:manage'), ['D22', 'D26']),
  },
  addShopperMessage: {
    method: 'POST',
    path: '/v1/test_helpers/claims/:claimId/shopper-messages',
    headers: ZIdempotencyHeaders,
    pathParams: ZClaimPath,
    body: ZTestShopperMessage,
    responses: { 200: ZStatusOk, ...tokenErrors, 409: ZError },
    summary: 'Post a message as the shopper',
    description:
      "Adds a message from the claimant to the claim, as the shopper's claim page does, with its message/created event (D41, D25)." +
      TEST_ONLY +
      KEYED,
    metadata: testRoute(anyOf('claim:update', 'claim:manage'), ['D25', 'D41']),
  },
  recordEvent: {
    method: 'POST',
    path: '/v1/test_helpers/events',
    headers: ZIdempotencyHeaders,
    body: ZTestEventRequest,
    responses: { 201: ZTestEventRecorded, ...tokenErrors, 409: ZError },
    summary: 'Record a sample event',
    description:
      "Records an event of the topic with a sample body for the token's store, delivered like a real one: through the " +
      "outbox, signed with the app's webhook secret, retried, and listed in the event log (D32, D34)." +
      TEST_ONLY +
      KEYED,
    metadata: testRoute(noScope, ['D32', 'D34']),
  },
  flushDeliveries: {
    method: 'POST',
    path: '/v1/test_helpers/deliveries/flush',
    headers: ZIdempotencyHeaders,
    body: c.noBody(),
    responses: { 200: ZStatusOk, ...tokenErrors, 409: ZError },
    summary: 'Make pending deliveries due now',
    description:
      "Makes every pending webhook delivery of the token's store due at once, so a retry the schedule would make in minutes " +
      'or hours is attempted within a second (D35).' +
      TEST_ONLY +
      KEYED,
    metadata: testRoute(noScope, ['D35']),
  },
  listMail: {
    method: 'GET',
    path: '/v1/test_helpers/mail',
    responses: { 200: ZTestMailbox, ...tokenErrors },
    summary: 'Read the e-mails of the test store',
    description:
      'The last 100 e-mails the store would have sent to shoppers, newest first. A test store never sends e-mail: its ' +
      'store credits show emailStatus NOT_SENT (D42).' +
      TEST_ONLY,
    metadata: testRoute(noScope, ['D42']),
  },
  reset: {
    method: 'POST',
    path: '/v1/test_helpers/reset',
    headers: ZIdempotencyHeaders,
    body: c.noBody(),
    responses: { 200: ZStatusOk, ...tokenErrors, 409: ZError },
    summary: 'Empty the test store',
    description:
      "Removes the store's orders, claims, products and events, the events' entries in the app's event log included; " +
      'settings, installations and tokens stay.' +
      TEST_ONLY +
      KEYED,
    metadata: testRoute(noScope),
  },
  addTrackingEvents: {
    method: 'POST',
    path: '/v1/test_helpers/tracking/events',
    headers: ZIdempotencyHeaders,
    body: ZTestTrackingEventsBody,
    responses: { 200: ZTrackingPackage, ...tokenErrors, 409: ZError },
    summary: 'Inject tracking events',
    description:
      'Adds normalised events at any `occurredAt` to a package of the fulfillment, as the partner route does (the same body plus ' +
      '`sourceOrderId` and `sourceFulfillmentId`), with the same state, `tracking/updated` events and answer: the package (D54).' +
      TEST_ONLY +
      KEYED,
    metadata: testRoute(noScope, ['D45'], 'D54'),
  },
  evaluateTracking: {
    method: 'POST',
    path: '/v1/test_helpers/tracking/evaluate',
    headers: ZIdempotencyHeaders,
    body: ZTrackingEvaluateBody,
    responses: { 200: ZTrackingEvaluation, ...tokenErrors, 409: ZError, 501: ZError },
    summary: 'Run the tracking rules as of a time',
    description:
      "Runs the store's tracking rules over its packages as if it were `asOf` and answers the decisions, " +
      '`{decisions: [{trackingNumber, at, asOf, rule, action, reason, claimId}]}` (D54).' +
      TEST_ONLY +
      KEYED,
    metadata: testRoute(noScope, ['D45'], 'D54'),
  },
});
