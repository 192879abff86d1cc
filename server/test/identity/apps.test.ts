import { LATEST_API_VERSION } from '@protection-service/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TCreateAppRequest, TUpdateAppRequest } from '../../../sdk/src/index';
import { approvePricing, webhookSecretOf } from '../../src/domain/identity/apps';
import { webhookUrlProblem } from '../../src/domain/webhooks/webhook-urls';
import { digest } from '../../src/lib/crypto';
import { answered, bearer, createOwner, dashboardTokenFor, type Owner } from '../harness/fixtures';
import { startTestServer, type TestServer } from '../harness/server';

const registration = (overrides: Partial<TCreateAppRequest> = {}): TCreateAppRequest => ({
  name: 'Partner App',
  redirectUris: ['https://partner.example.com/callback'],
  webhookUrl: 'https://hooks.partner.example.com/svc',
  webhookTopics: ['claim/created', 'claim/approved'],
  requestedScopes: ['order:read', 'claim:manage'],
  distribution: 'public',
  ...overrides,
});

/** POST /v1/apps, GET /v1/apps/:clientId, POST /v1/apps/:clientId/rotate-secret (D9). */
describe('apps (D9)', () => {
  let server: TestServer;
  let owner: Owner;
  let token: string;
  let otherToken: string;
  beforeAll(async () => {
    server = await startTestServer();
    owner = await createOwner(server.db, 'apps');
    token = await dashboardTokenFor(server, owner.user.id);
    const other = await createOwner(server.db, 'apps-other');
    otherToken = await dashboardTokenFor(server, other.user.id);
  });
  afterAll(async () => {
    await server.close();
  });

  const create = (body: TCreateAppRequest, as = token) => server.api(as).apps.create({ body });
  /** A registration the client's types would refuse: sent raw. */
  const createRaw = (json: unknown) => server.request('/v1/apps', { method: 'POST', json, headers: bearer(token) });
  const read = (clientId: string, as = token) => server.api(as).apps.get({ params: { clientId } });
  const rotate = (clientId: string, as = token) => server.api(as).apps.rotateSecret({ params: { clientId } });

  it('registers an app and shows its secrets once; GET never shows them; the database holds no usable secret', async () => {
    const { data } = answered(await create(registration()), 201);
    expect(data).toEqual({
      clientId: expect.stringMatching(/^svc_app_/),
      clientSecret: expect.stringMatching(/^svc_secret_[A-Za-z0-9_-]{43}$/),
      testClientSecret: expect.stringMatching(/^svc_test_secret_[A-Za-z0-9_-]{43}$/),
      webhookSecret: expect.stringMatching(/^svc_whsec_/),
      name: 'Partner App',
      redirectUris: ['https://partner.example.com/callback'],
      webhookUrl: 'https://hooks.partner.example.com/svc',
      testWebhookUrl: null,
      webhookTopics: ['claim/created', 'claim/approved'],
      requestedScopes: ['order:read', 'claim:manage'],
      apiVersion: LATEST_API_VERSION,
      distribution: 'public',
      pricingApproved: false,
      createdAt: expect.stringMatching(/\.\d{3}Z$/),
      updatedAt: expect.stringMatching(/\.\d{3}Z$/),
    });

    const shown = answered(await read(data.clientId), 200).data;
    const { clientSecret, testClientSecret, webhookSecret, ...publicPart } = data;
    expect(shown).toEqual(publicPart);
    expect(JSON.stringify(shown)).not.toContain(clientSecret);

    // D5: a digest of the client secret and the webhook secret encrypted, never in plain text.
    const row = await server.db
      .selectFrom('apps')
      .selectAll()
      .where('clientId', '=', data.clientId)
      .executeTakeFirstOrThrow();
    expect(row.ownerUserId).toBe(owner.user.id);
    expect(row.clientSecretHash).toBe(digest(clientSecret));
    expect(row.testClientSecretHash).toBe(digest(testClientSecret));
    expect(JSON.stringify(row)).not.toContain(clientSecret);
    expect(JSON.stringify(row)).not.toContain(testClientSecret);
    expect(JSON.stringify(row)).not.toContain(webhookSecret);
    expect(webhookSecretOf(server.config.secretKey, row.webhookSecretCiphertext)).toBe(webhookSecret);
  });

  it('normalizes earlier-style scope aliases to the later style, without duplicates (D16)', async () => {
    const { data } = answered(
      await create(
        registration({
          requestedScopes: ['read_orders', 'order:read', 'write_claims', 'read_shipping_insurance_pricing'],
        }),
      ),
      201,
    );
    expect(data.requestedScopes).toEqual(['order:read', 'claim:update', 'pricing:shipping-insurance:read']);
  });

  it.each([
    ['write_settings (no later equivalent, D16)', { requestedScopes: ['order:read', 'write_settings'] }],
    ['an unknown scope', { requestedScopes: ['order:delete'] }],
    [
      'pricing scopes on a private app (D9)',
      { distribution: 'private', requestedScopes: ['pricing:extended-warranty:update'] },
    ],
    [
      'an earlier-style pricing alias on a private app (D9)',
      { distribution: 'private', requestedScopes: ['read_shipping_insurance_pricing'] },
    ],
    ['topics without a webhook URL', { webhookUrl: undefined }],
    ['an http redirect URI to a public host', { redirectUris: ['http://partner.example.com/cb'] }],
    ['an unknown property', { secret: 'x' }],
  ])('answers 400 for %s and registers nothing', async (_name, overrides) => {
    const before = await server.db.selectFrom('apps').select('clientId').execute();
    const res = await createRaw({ ...registration(), ...overrides });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    expect(await server.db.selectFrom('apps').select('clientId').execute()).toHaveLength(before.length);
  });

  it('refuses app tokens, missing and bad tokens with 401', async () => {
    expect((await server.request('/v1/apps', { method: 'POST', json: registration() })).status).toBe(401);
    expect((await create(registration(), 'svc_at_nope')).status).toBe(401);
  });

  it("answers 404 for another user's app, exactly as for a missing one", async () => {
    const { data } = answered(await create(registration()), 201);
    const foreign = await read(data.clientId, otherToken);
    const missing = await read('svc_app_missing', otherToken);
    expect(foreign.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(foreign.body).toEqual(missing.body);
    const foreignRotate = await rotate(data.clientId, otherToken);
    expect(foreignRotate.status).toBe(404);
    // The foreign rotation changed nothing.
    const row = await server.db
      .selectFrom('apps')
      .select('updatedAt')
      .where('clientId', '=', data.clientId)
      .executeTakeFirstOrThrow();
    expect(row.updatedAt.toISOString()).toBe(data.updatedAt);
  });

  it('rotates the client secret: a new one shown once, the old digest replaced', async () => {
    const { data } = answered(await create(registration()), 201);
    const rotated = answered(await rotate(data.clientId), 200).data;
    expect(rotated).toEqual({ clientId: data.clientId, clientSecret: expect.stringMatching(/^svc_secret_/) });
    expect(rotated.clientSecret).not.toBe(data.clientSecret);
    const row = await server.db
      .selectFrom('apps')
      .select('clientSecretHash')
      .where('clientId', '=', data.clientId)
      .executeTakeFirstOrThrow();
    expect(row.clientSecretHash).toBe(digest(rotated.clientSecret));
    expect(row.clientSecretHash).not.toBe(digest(data.clientSecret));
  });

  const update = (clientId: string, body: TUpdateAppRequest, as = token) =>
    server.api(as).apps.update({ params: { clientId }, body });

  it('changes the fields given and keeps the others; answers the app as GET does (D44)', async () => {
    const { data: created } = answered(await create(registration()), 201);
    const changed = answered(
      await update(created.clientId, {
        name: 'Partner App 2',
        testWebhookUrl: 'https://hooks.partner.example.com/test',
        apiVersion: '2025-01-01',
      }),
      200,
    ).data;
    expect(changed).toMatchObject({
      name: 'Partner App 2',
      testWebhookUrl: 'https://hooks.partner.example.com/test',
      apiVersion: '2025-01-01',
      redirectUris: created.redirectUris,
      webhookUrl: created.webhookUrl,
      webhookTopics: created.webhookTopics,
    });
    expect(Date.parse(changed.updatedAt)).toBeGreaterThanOrEqual(Date.parse(created.updatedAt));
    expect(answered(await read(created.clientId), 200).data).toEqual(changed);

    const again = answered(
      await update(created.clientId, {
        redirectUris: ['https://partner.example.com/cb2'],
        webhookUrl: 'https://hooks.partner.example.com/v2',
        webhookTopics: ['claim/denied'],
        testWebhookUrl: null,
      }),
      200,
    ).data;
    expect(again).toMatchObject({
      name: 'Partner App 2',
      apiVersion: '2025-01-01',
      redirectUris: ['https://partner.example.com/cb2'],
      webhookUrl: 'https://hooks.partner.example.com/v2',
      webhookTopics: ['claim/denied'],
      testWebhookUrl: null,
    });
    // An empty change changes nothing but is no error.
    expect(answered(await update(created.clientId, {}), 200).data).toMatchObject({ name: 'Partner App 2' });
  });

  it.each([
    ['an unknown API version', { apiVersion: '2024-01-01' }],
    ['a malformed API version', { apiVersion: 'latest' }],
    ['an empty redirect URI list', { redirectUris: [] }],
    ['a null webhook URL', { webhookUrl: null }],
    ['a test webhook URL with a fragment', { testWebhookUrl: 'https://hooks.partner.example.com/t#x' }],
    ['an unknown property', { clientSecret: 'svc_secret_x' }],
  ])('answers 400 for %s and changes nothing', async (_name, json) => {
    const { data: created } = answered(await create(registration()), 201);
    const res = await server.request(`/v1/apps/${created.clientId}`, { method: 'PATCH', json, headers: bearer(token) });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    expect(answered(await read(created.clientId), 200).data).toEqual(
      Object.fromEntries(
        Object.entries(created).filter(([k]) => !['clientSecret', 'testClientSecret', 'webhookSecret'].includes(k)),
      ),
    );
  });

  it('registers and updates an app with every topic the published document names, and no more (D54)', async () => {
    const doc = (await (await server.request('/openapi.json')).json()) as {
      components: {
        schemas: Record<string, { properties: Record<string, { items: { enum: string[] }; maxItems: number }> }>;
      };
    };
    for (const name of ['CreateAppRequest', 'UpdateAppRequest']) {
      const topics = doc.components.schemas[name]!.properties.webhookTopics!;
      // The document agrees with itself: every topic it names can be taken at once.
      expect(topics.maxItems, name).toBe(topics.items.enum.length);
    }
    const every = doc.components.schemas.CreateAppRequest!.properties.webhookTopics!.items
      .enum as TCreateAppRequest['webhookTopics'] & string[];
    expect(every).toEqual(expect.arrayContaining(['tracking/updated', 'tracking/alert']));
    const { data: created } = answered(await create(registration({ webhookTopics: every })), 201);
    expect(created.webhookTopics).toEqual(every);
    expect(answered(await read(created.clientId), 200).data.webhookTopics).toEqual(every);

    const { data: few } = answered(await create(registration({ webhookTopics: ['claim/created'] })), 201);
    const reversed = [...every].reverse();
    expect(answered(await update(few.clientId, { webhookTopics: reversed }), 200).data.webhookTopics).toEqual(reversed);
    // A topic twice is still refused, and changes nothing.
    const twice = [...every, every[0]!];
    expect((await createRaw(registration({ webhookTopics: twice }))).status).toBe(400);
    const res = await server.request(`/v1/apps/${few.clientId}`, {
      method: 'PATCH',
      json: { webhookTopics: twice },
      headers: bearer(token),
    });
    expect(res.status).toBe(400);
    expect(answered(await read(few.clientId), 200).data.webhookTopics).toEqual(reversed);
  });

  it('refuses topics on an app without a webhook URL, and changes nothing', async () => {
    const { data: created } = answered(await create(registration({ webhookUrl: undefined, webhookTopics: [] })), 201);
    const body = answered(await update(created.clientId, { webhookTopics: ['claim/created'] }), 400);
    expect(body.issues?.[0]?.path).toBe('body.webhookUrl');
    expect(answered(await read(created.clientId), 200).data.webhookTopics).toEqual([]);
    // With a test webhook URL, an app tried on test stores only may subscribe (D45).
    const subscribed = answered(
      await update(created.clientId, {
        testWebhookUrl: 'https://hooks.partner.example.com/test',
        webhookTopics: ['claim/created'],
      }),
      200,
    ).data;
    expect(subscribed).toMatchObject({ webhookUrl: null, webhookTopics: ['claim/created'] });
    // ...and clearing it while subscribed leaves the topics nowhere to go.
    expect(answered(await update(created.clientId, { testWebhookUrl: null }), 400).issues?.[0]?.path).toBe(
      'body.webhookUrl',
    );
  });

  it("answers 404 for another user's app and changes nothing (D9)", async () => {
    const { data: created } = answered(await create(registration()), 201);
    const foreign = await update(created.clientId, { name: 'Taken over' }, otherToken);
    const missing = await update('svc_app_missing', { name: 'Taken over' }, otherToken);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(missing.body);
    expect(answered(await read(created.clientId), 200).data.name).toBe('Partner App');
  });

  it('shows pricingApproved once an operator approved a public app', async () => {
    const { data } = answered(
      await create(registration({ requestedScopes: ['pricing:shipping-insurance:read'] })),
      201,
    );
    await approvePricing(server.db, data.clientId);
    const shown = answered(await read(data.clientId), 200).data;
    expect(shown.pricingApproved).toBe(true);
  });

  it('answers the owner an empty D34 event log for a new app', async () => {
    const { data } = answered(await create(registration()), 201);
    const events = answered(
      await server.api(token).apps.listEvents({ params: { clientId: data.clientId }, query: {} }),
      200,
    );
    expect(events.data.edges).toEqual([]);
  });
});

describe('webhook URLs outside development (D32: WEBHOOK_ALLOW_PRIVATE_URLS=false)', () => {
  let server: TestServer;
  let token: string;
  beforeAll(async () => {
    server = await startTestServer({ webhookAllowPrivateUrls: false });
    const owner = await createOwner(server.db, 'strict');
    token = await dashboardTokenFor(server, owner.user.id);
  });
  afterAll(async () => {
    await server.close();
  });

  it.each([
    'http://hooks.partner.example.com/svc',
    'https://127.0.0.1/hook',
    'https://10.1.2.3/hook',
    'https://192.168.1.10:8443/hook',
    'https://172.20.0.5/hook',
    'https://169.254.169.254/latest/meta-data',
    'https://[::1]/hook',
    'https://[fe80::1]/hook',
    'https://[fd00::1]/hook',
    'https://[::ffff:127.0.0.1]/hook',
    'https://0x7f.1/hook',
    'https://localhost/hook',
    'https://api.localhost/hook',
  ])('refuses %s with 400', async (webhookUrl) => {
    const body = answered(await server.api(token).apps.create({ body: registration({ webhookUrl }) }), 400);
    expect(body).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    expect(body.issues?.[0]?.path).toBe('body.webhookUrl');
  });

  it('accepts a public https URL', async () => {
    for (const webhookUrl of ['https://hooks.partner.example.com/svc', 'https://93.184.216.34/hook']) {
      const res = await server.api(token).apps.create({ body: registration({ webhookUrl }) });
      expect(res.status, webhookUrl).toBe(201);
    }
  });

  it('lets the operator allow private URLs (development and tests)', () => {
    expect(webhookUrlProblem('http://127.0.0.1:4000/hook', true)).toBeNull();
    expect(webhookUrlProblem('http://127.0.0.1:4000/hook', false)).not.toBeNull();
  });
});
