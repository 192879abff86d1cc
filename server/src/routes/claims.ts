import type { Contract } from '@protection-service/contract';
import { fileClaim, fileOfflineClaim } from '../domain/claims/filing';
import { approveClaim, denyClaim, type MoveResult, postMessage, transitionClaim } from '../domain/claims/moves';
import { listClaims, readClaim } from '../domain/claims/read';
import { badRequest, HttpError, notFound } from '../http/errors';
import { CursorCodec } from '../lib/cursor';
import { storeOf, tokenOf } from './caller';
import type { GroupHandlers, RouteContext } from './context';

const OK = { status: 'ok' } as const;

/** A validation failure found by the domain (D2: 400 with its issues). */
function invalid(issues: { path: string; message: string }[]): HttpError {
  return badRequest(`invalid request: ${issues[0]!.path}: ${issues[0]!.message}`, issues);
}

/** Maps a refused move: 404 for a claim the store does not have (D7), 409 for a move D22 forbids. */
function refusal(result: Exclude<MoveResult, { ok: true }>): HttpError {
  if ('missing' in result) return notFound('claim not found');
  if ('issues' in result) return invalid(result.issues);
  return new HttpError(409, `a ${result.conflict.from} claim cannot move to ${result.conflict.to} (D22)`);
}

/** Claims (D22-D26); the store and the acting app come from the token only (D7). */
export function claimHandlers({ db, config }: RouteContext): GroupHandlers<Contract['claims']> {
  const cursors = new CursorCodec(config.secretKey);
  const base = config.publicBaseUrl;
  const actor = (req: Parameters<typeof tokenOf>[0]) => {
    const token = tokenOf(req);
    return { storeId: token.storeId, clientId: token.clientId };
  };
  const record = async (storeId: string, claimId: string) => {
    const claim = await readClaim(db, storeId, claimId, base);
    if (!claim) throw notFound('claim not found');
    return { status: 200 as const, body: claim };
  };
  return {
    async file({ params, body, req, res }) {
      const result = await fileClaim(db, storeOf(req), params.sourceOrderId, body);
      if ('missing' in result) throw notFound('order not found');
      if ('issues' in result) throw invalid(result.issues);
      res.setHeader('location', `/v1/claims/${encodeURIComponent(result.claimId)}`);
      return { status: 200, body: OK };
    },
    async fileOffline({ body, req, res }) {
      const result = await fileOfflineClaim(db, storeOf(req), body);
      if (!result.ok) throw invalid([{ path: 'body.storeId', message: result.message }]);
      res.setHeader('location', `/v1/claims/${encodeURIComponent(result.claimId)}`);
      return { status: 200, body: result.filed };
    },
    async list({ query, req }) {
      const result = await listClaims(db, cursors, storeOf(req), query);
      if (!result.ok) throw badRequest(`invalid request: ${result.message}`);
      return { status: 200, body: result.page };
    },
    async get({ params, req }) {
      return record(storeOf(req), params.claimId);
    },
    async postMessage({ params, body, req }) {
      if (!(await postMessage(db, storeOf(req), params.claimId, body))) throw notFound('claim not found');
      return { status: 200, body: OK };
    },
    async approve({ params, body, req }) {
      const result = await approveClaim(db, actor(req), params.claimId, body);
      if (!result.ok) throw refusal(result);
      return record(storeOf(req), params.claimId);
    },
    async deny({ params, body, req }) {
      const result = await denyClaim(db, actor(req), params.claimId, body);
      if (!result.ok) throw refusal(result);
      return record(storeOf(req), params.claimId);
    },
    async transition({ params, body, req }) {
      const result = await transitionClaim(db, actor(req), params.claimId, body.claimState, body.note ?? null);
      if (!result.ok) throw refusal(result);
      return record(storeOf(req), params.claimId);
    },
  };
}
