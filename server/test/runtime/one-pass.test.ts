import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchesWritten } from '../../src/db/committed-batches';
import { onePassRefusals } from '../../src/runtime/kysely-raw';
import { CLAIM_TEST_SCOPES, claimBody, orderBody } from '../harness/claims';
import { answered, createApp, createOwner, installWithToken } from '../harness/fixtures';
import { startTestServer, type TestServer } from '../harness/server';

/**
 * The statements of the volume paths are read in one pass (runtime/kysely-raw.ts), not by
 * Kysely's compiler: a column reference or a literal anywhere in one (a filing's statement
 * once took its e-mail setting through two `sql.ref`s) costs every call a walk of the whole
 * statement by the compiler and its plugins.
 */
describe('the write paths compile in one pass', () => {
  let server: TestServer;
  let api: ReturnType<TestServer['api']>;

  beforeAll(async () => {
    server = await startTestServer({}, { rateLimits: { token: 1e9 } });
    const owner = await createOwner(server.db, 'one-pass');
    // Subscribed, so that the writes also queue deliveries after their commit.
    const app = await createApp(server, owner.user.id, {
      requestedScopes: CLAIM_TEST_SCOPES,
      webhookUrl: 'http://127.0.0.1:9/hook',
      webhookTopics: ['protection/added', 'protection/removed', 'claim/created'],
    });
    api = server.api((await installWithToken(server, app.clientId, owner.store.id, CLAIM_TEST_SCOPES)).accessToken);
  });
  afterAll(async () => {
    await server.close();
  });

  it('writes orders, files claims and queues their deliveries and e-mail without Kysely compiling any', async () => {
    const lineItems = [{ sourceItemId: 'li-1', quantity: 3, price: 40 }];
    const before = onePassRefusals();
    for (const sourceOrderId of ['one-pass-1', 'one-pass-2']) {
      const body = orderBody({ premiumPaid: 2, lineItems });
      answered(await api.orders.upsert({ params: { sourceOrderId }, body }), 200);
      // Again, changed: the write of an existing order.
      answered(await api.orders.upsert({ params: { sourceOrderId }, body: { ...body, total: 121 } }), 200);
      for (const issueType of ['DAMAGED', 'ORDER_DELIVERED_NOT_RECEIVED'] as const) {
        const issues = [{ sourceItemId: 'li-1', issueType, quantity: 1 }];
        answered(
          await api.claims.file({ params: { sourceOrderId }, body: claimBody({ fulfillmentIssues: [{ issues }] }) }),
          200,
        );
      }
    }
    await batchesWritten(server.db);
    expect(onePassRefusals() - before).toBe(0);
  });
});
