import { z } from 'zod';
import { tokenErrors, ZError } from '../errors';
import { routeGroup, routeMeta } from '../meta';
import {
  ZClaim,
  ZClaimApprove,
  ZClaimConnection,
  ZClaimDeny,
  ZClaimFile,
  ZClaimListQuery,
  ZClaimMessageWrite,
  ZClaimTransition,
  ZOfflineClaimFile,
  ZOfflineClaimFiled,
} from '../schemas/claims';
import { ZId, ZIdempotencyHeaders, ZStatusOk } from '../schemas/common';
import { anyOf } from '../scopes';

const tokenRoute = routeMeta('token', 'plain');

const ZClaimPath = z.object({ claimId: ZId });

/**
 * Claims (spec "Claims", D22-D26). Key order matters: `fileOffline`
 * (`/v1/claims/offline`) precedes `file` (`/v1/claims/:sourceOrderId`).
 */
export const claimRoutes = routeGroup({
  fileOffline: {
    method: 'POST',
    path: '/v1/claims/offline',
    headers: ZIdempotencyHeaders,
    body: ZOfflineClaimFile,
    responses: { 200: ZOfflineClaimFiled, ...tokenErrors, 409: ZError },
    summary: 'File a claim for an offline purchase',
    description:
      'Creates an order with a generated `offline_…` sourceOrderId and a claim on its single item, and ' +
      "echoes the payload (D23). A body `storeId` other than the token's store answers 400. " +
      'Accepts an `Idempotency-Key` (D33).',
    metadata: tokenRoute(anyOf('claim:update', 'claim:manage'), 'spec', ['D23', 'D33']),
  },
  file: {
    method: 'POST',
    path: '/v1/claims/:sourceOrderId',
    pathParams: z.object({ sourceOrderId: ZId }),
    headers: ZIdempotencyHeaders,
    body: ZClaimFile,
    responses: { 200: ZStatusOk, ...tokenErrors, 409: ZError },
    summary: 'File a claim against an order',
    description:
      'Files a `NEW` claim linked to the order\'s active policy (or none), answers `{status:"ok"}` with a ' +
      '`Location: /v1/claims/<id>` header and emits `claim/created` (D22, D23). Issue quantities may not ' +
      'exceed the ordered quantity (400); an unknown order answers 404. Accepts an `Idempotency-Key` (D33).',
    metadata: tokenRoute(anyOf('claim:update', 'claim:manage'), 'spec', ['D22', 'D23', 'D33']),
  },
  list: {
    method: 'GET',
    path: '/v1/claims',
    query: ZClaimListQuery,
    responses: { 200: ZClaimConnection, ...tokenErrors },
    summary: 'List claims',
    description:
      "Cursor-paged list of the store's claims ordered by `createdAt` then `id` (keyset paging): `first` " +
      '(1-250, default 50), `after`, `last`, `before`, filtered by `claimState`, `sourceOrderId`, ' +
      '`createdAtMin`, `createdAtMax`, `updatedAtMin` (D24).',
    metadata: tokenRoute(anyOf('claim:read', 'claim:update', 'claim:manage'), 'spec', ['D24']),
  },
  get: {
    method: 'GET',
    path: '/v1/claims/:claimId',
    pathParams: ZClaimPath,
    responses: { 200: ZClaim, ...tokenErrors },
    summary: 'Get a claim',
    description: 'Answers one claim record in the spec shape (D24).',
    metadata: tokenRoute(anyOf('claim:read', 'claim:update', 'claim:manage'), 'D24'),
  },
  postMessage: {
    method: 'POST',
    path: '/v1/claims/:claimId/messages',
    pathParams: ZClaimPath,
    headers: ZIdempotencyHeaders,
    body: ZClaimMessageWrite,
    responses: { 200: ZStatusOk, ...tokenErrors, 409: ZError },
    summary: 'Post a message on a claim',
    description: 'Adds a message to the claim and emits `message/created` (D25). Accepts an `Idempotency-Key` (D33).',
    metadata: tokenRoute(anyOf('claim:update', 'claim:manage'), 'D25', ['D33']),
  },
  approve: {
    method: 'POST',
    path: '/v1/claims/:claimId/approve',
    pathParams: ZClaimPath,
    headers: ZIdempotencyHeaders,
    body: ZClaimApprove,
    responses: { 200: ZClaim, ...tokenErrors, 409: ZError },
    summary: 'Approve a claim',
    description:
      'Moves the claim to `APPROVED` with its resolutions and emits `claim/approved`; a `STORE_CREDIT` ' +
      'resolution creates a claim store credit (D22, D26). A move the claim states do not allow answers 409. ' +
      'Answers the updated claim record.',
    metadata: tokenRoute(anyOf('claim:manage'), 'D22', ['D26', 'D33']),
  },
  deny: {
    method: 'POST',
    path: '/v1/claims/:claimId/deny',
    pathParams: ZClaimPath,
    headers: ZIdempotencyHeaders,
    body: ZClaimDeny,
    responses: { 200: ZClaim, ...tokenErrors, 409: ZError },
    summary: 'Deny a claim',
    description:
      'Moves the claim to `DENIED` with a reason and emits `claim/denied` (D22). A move the claim states do not ' +
      'allow answers 409. Answers the updated claim record.',
    metadata: tokenRoute(anyOf('claim:manage'), 'D22', ['D33']),
  },
  transition: {
    method: 'POST',
    path: '/v1/claims/:claimId/transition',
    pathParams: ZClaimPath,
    headers: ZIdempotencyHeaders,
    body: ZClaimTransition,
    responses: { 200: ZClaim, ...tokenErrors, 409: ZError },
    summary: 'Move a claim to another state',
    description:
      'Every move other than approve and deny (D22); a move the claim states do not allow answers 409 and ' +
      'changes nothing. Answers the updated claim record.',
    metadata: tokenRoute(anyOf('claim:manage'), 'D22', ['D33']),
  },
});
