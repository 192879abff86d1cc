import { Readable } from 'node:stream';
import { type Contract, LATEST_API_VERSION } from '@protection-service/contract';
import { startClaimExport } from '../domain/claims/export';
import { fileClaim, fileOfflineClaim } from '../domain/claims/filing';
import { approveClaim, denyClaim, postMessage, previewApproval, transitionClaim } from '../domain/claims/moves';
import { listClaims, readClaim } from '../domain/claims/read';
import { addNote, readTimeline } from '../domain/claims/timeline';
import { actorOf, storeOf } from '../http/caller';
import type { GroupHandlers, RouteContext } from './context';

const OK = { status: 'ok' } as const;

/** Claims (D22-D26); the store and the acting app or member come from the token only (D7, D49). */
export function claimHandlers({ db, pager, claimLinks, logger }: RouteContext): GroupHandlers<Contract['claims']> {
  const record = async (storeId: string, claimId: string) => ({
    status: 200 as const,
    body: await readClaim(db, storeId, claimId, claimLinks),
  });
  return {
    async file({ params, body, req, res }) {
      const claimId = await fileClaim(db, actorOf(req), params.sourceOrderId, body);
      res.setHeader('location', `/v1/claims/${encodeURIComponent(claimId)}`);
      return { status: 200, body: OK };
    },
    async fileOffline({ body, req, res }) {
      const result = await fileOfflineClaim(db, actorOf(req), body);
      res.setHeader('location', `/v1/claims/${encodeURIComponent(result.claimId)}`);
      return { status: 200, body: result.filed };
    },
    async list({ query, req }) {
      return { status: 200, body: await listClaims(db, pager, storeOf(req), query) };
    },
    async export({ query, req, res }) {
      // D52: refused (400, 422) before any byte is sent; then streamed batch by batch.
      const { lines } = await startClaimExport(db, actorOf(req), query, req.apiVersion ?? LATEST_API_VERSION);
      const day = new Date().toISOString().slice(0, 10);
      res.setHeader('content-type', 'text/csv; charset=utf-8');
      res.setHeader('content-disposition', `attachment; filename="claims-${day}.csv"`);
      res.setHeader('cache-control', 'no-store');
      const body = Readable.from(lines);
      // The status and headers are gone already: a failure can no longer answer 500. The
      // connection is cut (the client sees a truncated transfer, not a complete file) and logged.
      body.on('error', (err) => {
        logger.error({ err, requestId: req.id }, 'claims export failed while streaming');
        res.destroy();
      });
      return { status: 200, body: body as never };
    },
    async get({ params, req }) {
      return record(storeOf(req), params.claimId);
    },
    async getTimeline({ params, req }) {
      return { status: 200, body: { data: await readTimeline(db, storeOf(req), params.claimId) } };
    },
    async addNote({ params, body, req }) {
      return { status: 201, body: { data: await addNote(db, actorOf(req), params.claimId, body.note) } };
    },
    async postMessage({ params, body, req }) {
      const actor = actorOf(req);
      await postMessage(db, storeOf(req), params.claimId, body, actor.userId ?? actor.clientId);
      return { status: 200, body: OK };
    },
    async previewApproval({ params, body, req }) {
      return { status: 200, body: { data: await previewApproval(db, actorOf(req), params.claimId, body) } };
    },
    async approve({ params, body, req }) {
      await approveClaim(db, actorOf(req), params.claimId, body);
      return record(storeOf(req), params.claimId);
    },
    async deny({ params, body, req }) {
      await denyClaim(db, actorOf(req), params.claimId, body);
      return record(storeOf(req), params.claimId);
    },
    async transition({ params, body, req }) {
      await transitionClaim(db, actorOf(req), params.claimId, body.claimState, body.note ?? null);
      return record(storeOf(req), params.claimId);
    },
  };
}
