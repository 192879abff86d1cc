import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { errors, tokenErrors, ZError } from '../errors';
import { routeGroup, routeMeta } from '../meta';
import {
  CLAIM_EXPORT_COLUMNS,
  CLAIM_EXPORT_LIMIT,
  ZApprovePreview,
  ZClaim,
  ZClaimApprove,
  ZClaimConnection,
  ZClaimDeny,
  ZClaimFile,
  ZClaimListQuery,
  ZClaimMessageWrite,
  ZClaimNote,
  ZClaimNoteWrite,
  ZClaimTimeline,
  ZClaimTransition,
  ZOfflineClaimFile,
  ZOfflineClaimFiled,
} from '../schemas/claims';
import { data, ZId, ZIdempotencyHeaders, ZStatusOk } from '../schemas/common';
import { anyOf } from '../scopes';

const tokenRoute = routeMeta('token', 'plain');
const csvRoute = routeMeta('token', 'csv');
const c = initContract();

const tokenDataRoute = routeMeta('token', 'data');

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
    responses: { 200: ZOfflineClaimFiled, ...tokenErrors, 409: ZError, ...errors(422) },
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
    responses: { 200: ZStatusOk, ...tokenErrors, 409: ZError, ...errors(422) },
    summary: 'File a claim against an order',
    description:
      'Files a `NEW` claim linked to the order\'s active policy (or none), answers `{status:"ok"}` with a ' +
      '`Location: /v1/claims/<id>` header and emits `claim/created` (D22, D23). Issue quantities may not ' +
      'exceed the ordered quantity (400); an unknown order answers 404. An image naming a file of the service (D56) ' +
      "must name one of the store's files not attached to another claim (422 naming the item); it is then the " +
      "claim's. Accepts an `Idempotency-Key` (D33).",
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
      "`createdAtMin`, `createdAtMax`, `updatedAtMin` (D24), and by the claim queue's tab (`queue`), several " +
      '`claimState`s, `q` (exact claim id, order number or shopper e-mail) and `claimType`, oldest or newest ' +
      'first (`order`, D51). `queue` with `claimState`, or `createdAtMin` after `createdAtMax`, answers 400.',
    metadata: tokenRoute(anyOf('claim:read', 'claim:update', 'claim:manage'), 'spec', ['D24', 'D51']),
  },
  // Before `get`: `/v1/claims/export` is this route, never a claim named `export`.
  export: {
    method: 'GET',
    path: '/v1/claims/export',
    query: ZClaimListQuery.omit({ first: true, after: true, last: true, before: true }),
    responses: {
      200: c.otherResponse({ contentType: 'text/csv', body: z.string().describe('RFC 4180 CSV, a header row first') }),
      ...tokenErrors,
      ...errors(422),
    },
    summary: 'Export claims as CSV',
    description:
      "The store's claims matching the list's filters (`GET /v1/claims`: `queue`, `claimState`, `q`, `claimType`, `sourceOrderId`, `createdAtMin`, `createdAtMax`, `updatedAtMin`, `order`) as `text/csv` (RFC 4180: CRLF line ends, every field quoted when it holds a quote, comma or line break, quotes doubled), with a header row and `Content-Disposition: attachment`, streamed (D52). " +
      `Columns: ${CLAIM_EXPORT_COLUMNS.join(', ')}. \`items\` is each item as \`<quantity> x <name or item id> (<issue type>)\` joined by \`; \`; \`resolution\` the approved resolution types joined by \`; \`; \`amount\` the paid value of the resolutions and \`currency\` its currency, one amount per currency joined by \`; \` in the rare claim paid in two. ` +
      "A cell beginning with `=`, `+`, `-`, `@`, a tab or a carriage return is written after a `'`, so no spreadsheet runs it as a formula. " +
      `At most ${CLAIM_EXPORT_LIMIT.toLocaleString('en')} rows: more answers 422 before anything is sent; narrow the filters.`,
    metadata: csvRoute(anyOf('claim:read', 'claim:update', 'claim:manage'), 'D52', ['D24', 'D51']),
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
  getTimeline: {
    method: 'GET',
    path: '/v1/claims/:claimId/timeline',
    pathParams: ZClaimPath,
    responses: { 200: data(ZClaimTimeline), ...tokenErrors },
    summary: "A claim's timeline",
    description:
      'Everything that happened to the claim, oldest first: state moves with their notes, resolutions, store ' +
      'credits with their e-mail status, messages and staff notes, each with its time and who did it (D51). ' +
      'Wrapped in `data`.',
    metadata: tokenDataRoute(anyOf('claim:read', 'claim:update', 'claim:manage'), 'D51'),
  },
  addNote: {
    method: 'POST',
    path: '/v1/claims/:claimId/notes',
    pathParams: ZClaimPath,
    headers: ZIdempotencyHeaders,
    body: ZClaimNoteWrite,
    responses: { 201: data(ZClaimNote), ...tokenErrors, 409: ZError },
    summary: 'Add a staff note to a claim',
    description:
      "Adds a note (1-5,000 characters) to the claim's timeline for the store's staff and apps: it emits no " +
      "webhook and never shows on the shopper's claim page (D41, D51). Accepts an `Idempotency-Key` (D33). " +
      'Wrapped in `data`.',
    metadata: tokenDataRoute(anyOf('claim:update', 'claim:manage'), 'D51', ['D33']),
  },
  postMessage: {
    method: 'POST',
    path: '/v1/claims/:claimId/messages',
    pathParams: ZClaimPath,
    headers: ZIdempotencyHeaders,
    body: ZClaimMessageWrite,
    responses: { 200: ZStatusOk, ...tokenErrors, 409: ZError, ...errors(422) },
    summary: 'Post a message on a claim',
    description:
      'Adds a message to the claim and emits `message/created` (D25). A media naming a file of the service (D56) must ' +
      "name one of the store's files not attached to another claim (422 naming the item). Accepts an " +
      '`Idempotency-Key` (D33).',
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
  previewApproval: {
    method: 'POST',
    path: '/v1/claims/:claimId/approve/preview',
    pathParams: ZClaimPath,
    headers: ZIdempotencyHeaders,
    body: ZClaimApprove,
    responses: { 200: data(ZApprovePreview), ...tokenErrors, 409: ZError },
    summary: 'Preview an approval',
    description:
      "Takes approve's body and answers what approving with it would create, changing nothing: the store " +
      'credits of its `STORE_CREDIT` resolutions, computed as approve computes them (D26, D51). It refuses what ' +
      'approve would refuse (400, 404, 409). Wrapped in `data`.',
    metadata: tokenDataRoute(anyOf('claim:manage'), 'D51', ['D26', 'D33']),
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
