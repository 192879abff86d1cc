import type { Scope } from '@protection-service/contract';
import { sql } from 'kysely';
import type { Client, TClaimFile, TOrderWrite } from '../../../sdk/src/index';
import type { Db } from '../../src/db/database';
import { bearer, createApp, createOwner, installWithToken, type Owner } from './fixtures';
import type { TestServer } from './server';

/** Claim scopes and the order scope the claim tests need to put their orders. */
export const CLAIM_TEST_SCOPES: Scope[] = ['order:update', 'claim:manage', 'claim:update', 'claim:read'];

/** A store with an app installed on it holding `scopes`, and request helpers for claims. */
export interface ClaimStore {
  owner: Owner;
  clientId: string;
  token: string;
  /** The typed client, as this store's app. */
  api: Client;
  putOrder(sourceOrderId: string, overrides?: Partial<TOrderWrite>): Promise<void>;
  /** Files a claim, sent raw: tests send bodies the typed client would refuse. */
  file(sourceOrderId: string, body?: object, headers?: Record<string, string>): Promise<Response>;
  /** Files a claim and answers its id (from the Location header). */
  fileId(sourceOrderId: string, body?: TClaimFile): Promise<string>;
  post(path: string, json: unknown, headers?: Record<string, string>): Promise<Response>;
  get(path: string): Promise<Response>;
}

export const orderBody = (overrides: Partial<TOrderWrite> = {}): TOrderWrite => ({
  sourceOrderNumber: '#1001',
  currency: 'USD',
  platformId: 'shopify',
  total: 120,
  sourceCreatedAt: '2026-01-31T12:00:00Z',
  ...overrides,
});

export const claimBody = (overrides: Partial<TClaimFile> = {}): TClaimFile => ({
  email: 'shopper@example.com',
  salesChannel: 'ONLINE',
  claimCategory: 'SHIPPING',
  fulfillmentIssues: [{ issues: [{ issueType: 'DAMAGED', quantity: 1 }] }],
  resolution: { desiredMethod: 'RESHIP' },
  ...overrides,
});

export async function claimStore(
  server: TestServer,
  label: string,
  scopes: Scope[] = CLAIM_TEST_SCOPES,
): Promise<ClaimStore> {
  const owner = await createOwner(server.db, label);
  const clientId = (await createApp(server, owner.user.id, { requestedScopes: CLAIM_TEST_SCOPES })).clientId;
  const { accessToken: token } = await installWithToken(server, clientId, owner.store.id, scopes);
  const post = (path: string, json: unknown, headers: Record<string, string> = {}) =>
    server.request(path, { method: 'POST', headers: { ...bearer(token), ...headers }, json });
  const file = (sourceOrderId: string, body: object = claimBody(), headers = {}) =>
    post(`/v1/claims/${encodeURIComponent(sourceOrderId)}`, body, headers);
  return {
    owner,
    clientId,
    token,
    api: server.api(token),
    async putOrder(sourceOrderId, overrides = {}) {
      const res = await server.api(token).orders.upsert({ params: { sourceOrderId }, body: orderBody(overrides) });
      if (res.status !== 200) throw new Error(`order PUT answered ${res.status}: ${JSON.stringify(res.body)}`);
    },
    file,
    async fileId(sourceOrderId, body = claimBody()) {
      const res = await server.api(token).claims.file({ params: { sourceOrderId }, body });
      if (res.status !== 200) throw new Error(`filing answered ${res.status}: ${JSON.stringify(res.body)}`);
      return res.headers.get('location')!.replace('/v1/claims/', '');
    },
    post,
    get: (path) => server.request(path, { headers: bearer(token) }),
  };
}

/** The bodies of the webhook events of one topic recorded for one claim. */
export const claimEvents = (db: Db, topic: string, claimId: string) =>
  db
    .selectFrom('webhookEvents')
    .select('body')
    .where('topic', '=', topic)
    .where(sql`body->>'claimId'`, '=', claimId)
    .execute();
