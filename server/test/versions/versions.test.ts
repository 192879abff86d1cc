import { SCOPES, type Scope, servedDocuments } from '@protection-service/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createApp, createOwner, dashboardTokenFor, installWithToken, type Owner } from '../harness/fixtures';
import { startTestServer, type TestServer } from '../harness/server';

/**
 * D44 through real HTTP: choosing the version (header, latest), the headers every versioned
 * answer carries, the unknown version, and each change of 2025-01-01 on the wire. Every
 * answer is also checked against the document of the version it names (the harness).
 */
describe('dated API versions (D44)', () => {
  let server: TestServer;
  let owner: Owner;
  let clientId: string;
  let all: string;
  const OLD = '2025-01-01';
  /** The version between them (D54 added its successor): served, not deprecated. */
  const PREVIOUS = '2026-12-01';
  const LATEST = '2027-01-15';

  const token = async (scopes: Scope[]) =>
    (await installWithToken(server, clientId, owner.store.id, scopes)).accessToken;
  const call = (method: string, path: string, tok: string | undefined, version?: string, json?: unknown) =>
    server.request(path, {
      method,
      headers: { ...(tok ? bearer(tok) : {}), ...(version ? { 'api-version': version } : {}) },
      ...(json !== undefined ? { json } : {}),
    });

  beforeAll(async () => {
    server = await startTestServer();
    owner = await createOwner(server.db, 'versions');
    clientId = (await createApp(server, owner.user.id, { requestedScopes: [...SCOPES] })).clientId;
    all = await token([...SCOPES]);
  });
  afterAll(async () => {
    await server.close();
  });

  describe('choosing the version', () => {
    it('answers the latest without a header, naming it, with no deprecation headers', async () => {
      const res = await call('GET', '/v2/settings', all);
      expect(res.status).toBe(200);
      expect(res.headers.get('api-version')).toBe(LATEST);
      expect(res.headers.get('deprecation')).toBeNull();
      expect(res.headers.get('sunset')).toBeNull();
      expect(Object.keys(await res.json())).toEqual(['data']);
    });

    it('answers the version the header names, with RFC 9745 / RFC 8594 deprecation headers on 2025-01-01', async () => {
      const res = await call('GET', '/v2/settings', all, OLD);
      expect(res.status).toBe(200);
      expect(res.headers.get('api-version')).toBe(OLD);
      expect(res.headers.get('deprecation')).toBe('@1796083200');
      expect(res.headers.get('sunset')).toBe('Wed, 01 Dec 2027 00:00:00 GMT');
      expect(res.headers.get('link')).toBe(`<${server.baseUrl}/docs/versions#2025-01-01>; rel="deprecation"`);
      const body = await res.json();
      expect(body).not.toHaveProperty('data');
      expect(body).toHaveProperty('storeCreditType');
    });

    it("serves the app's pin without a header, the header over the pin, and a changed pin within 1 s", async () => {
      const pinned = await createApp(server, owner.user.id, { requestedScopes: ['store:read'] });
      const tok = (await installWithToken(server, pinned.clientId, owner.store.id, ['store:read'])).accessToken;
      const dashboard = await dashboardTokenFor(server, owner.user.id);
      const pin = async (apiVersion: string) => {
        const res = await server.request(`/v1/apps/${pinned.clientId}`, {
          method: 'PATCH',
          headers: bearer(dashboard),
          json: { apiVersion },
        });
        expect(res.status).toBe(200);
        // The dashboard route itself has no version.
        expect(res.headers.get('api-version')).toBeNull();
        expect((await res.json()).data.apiVersion).toBe(apiVersion);
      };
      expect((await call('GET', '/v2/settings', tok)).headers.get('api-version')).toBe(LATEST);
      await pin(OLD);
      const started = Date.now();
      let served: string | null = null;
      while (Date.now() - started < 1500) {
        served = (await call('GET', '/v2/settings', tok)).headers.get('api-version');
        if (served === OLD) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(served).toBe(OLD);
      expect(Date.now() - started).toBeLessThan(1200);
      const pinnedAnswer = await call('GET', '/v2/settings', tok);
      expect(pinnedAnswer.headers.get('deprecation')).toBe('@1796083200');
      expect(await pinnedAnswer.json()).not.toHaveProperty('data');
      // The header wins over the pin.
      const header = await call('GET', '/v2/settings', tok, LATEST);
      expect(header.headers.get('api-version')).toBe(LATEST);
      expect(await header.json()).toHaveProperty('data');
      await pin(LATEST);
      await new Promise((r) => setTimeout(r, 1100));
      expect((await call('GET', '/v2/settings', tok)).headers.get('api-version')).toBe(LATEST);
    });

    it('refuses an unknown or malformed version with 400 in the D2 shape listing the supported ones, without Api-Version', async () => {
      for (const version of ['2024-01-01', 'latest', '2025-1-1', `${OLD}, ${LATEST}`]) {
        const res = await call('GET', '/v2/settings', all, version);
        expect(res.status).toBe(400);
        expect(res.headers.get('api-version')).toBeNull();
        const body = await res.json();
        expect(body).toEqual({
          statusCode: 400,
          error: 'Bad Request',
          message: expect.stringContaining('2027-01-15, 2026-12-01, 2025-01-01'),
        });
      }
    });

    it('marks errors of versioned routes too (401, 404), and leaves unversioned routes alone', async () => {
      const missing = await call('GET', '/v2/settings', undefined, OLD);
      expect(missing.status).toBe(401);
      expect(missing.headers.get('api-version')).toBe(OLD);
      expect(missing.headers.get('deprecation')).toBe('@1796083200');
      const notFound = await call('GET', '/v2/settings/context/ctx_nope', all, OLD);
      expect(notFound.status).toBe(404);
      expect(notFound.headers.get('api-version')).toBe(OLD);
      // A public read and a dashboard route have no version: a header is ignored, even a bad one.
      const pub = await call('GET', `/v1/quote/insurance?store_url=${owner.store.domain}&subtotal=10`, undefined, 'x');
      expect(pub.status).toBe(200);
      expect(pub.headers.get('api-version')).toBeNull();
      const dash = await call('GET', `/v1/apps/${clientId}`, undefined, 'nonsense');
      expect(dash.status).toBe(401);
      expect(dash.headers.get('api-version')).toBeNull();
    });
  });

  it("serves each version's document, the changelog page with an anchor per version, and lists the documents", async () => {
    expect(servedDocuments()).toEqual([
      { version: LATEST, url: `/openapi/${LATEST}.json`, deprecated: false },
      { version: PREVIOUS, url: `/openapi/${PREVIOUS}.json`, deprecated: false },
      { version: OLD, url: `/openapi/${OLD}.json`, deprecated: true },
    ]);
    for (const { version, url } of servedDocuments()) {
      const res = await server.request(url);
      expect(res.status).toBe(200);
      const doc = await res.json();
      expect(doc.info.version).toBe(version);
      expect(doc.servers[0].url).toBe(server.baseUrl);
    }
    const old = await (await server.request(`/openapi/${OLD}.json`)).json();
    expect(old.paths['/v2/settings'].put).toBeDefined();
    expect(old.components.headers.Sunset).toBeDefined();
    const latest = await (await server.request('/openapi.json')).json();
    expect(latest.info.version).toBe(LATEST);
    expect(latest.paths['/v2/settings'].put).toBeUndefined();
    expect((await server.request('/openapi/1999-01-01.json')).status).toBe(404);
    const page = await server.request('/docs/versions');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    for (const id of [LATEST, OLD, 'unwrapped-answers', 'price-rule-type-flat', 'merchant-settings-write']) {
      expect(html).toContain(`id="${id}"`);
    }
    expect(html).toContain('a second create answers 409 whatever its');
  });

  it('names the version on a versioned route whose body could not be read (400, 415)', async () => {
    const send = (body: string, type: string, version?: string) =>
      server.request('/v2/quote', {
        method: 'POST',
        headers: { ...bearer(all), 'content-type': type, ...(version ? { 'api-version': version } : {}) },
        body,
      });
    const malformed = await send('{"orderTotal":', 'application/json', OLD);
    expect(malformed.status).toBe(400);
    expect(malformed.headers.get('api-version')).toBe(OLD);
    expect(malformed.headers.get('sunset')).toBe('Wed, 01 Dec 2027 00:00:00 GMT');
    const latest = await send('{"orderTotal":', 'application/json');
    expect(latest.headers.get('api-version')).toBe(LATEST);
    // A public read's failures stay unversioned.
    const pub = await server.request('/v2/quote/insurance/partner/bad%20id', { headers: { 'api-version': OLD } });
    expect(pub.status).toBe(400);
    expect(pub.headers.get('api-version')).toBeNull();
  });

  describe('what 2025-01-01 differs in', () => {
    it('POST /v2/quote answers 200 with the bare quote; the latest 201 with {data}', async () => {
      const old = await call('POST', '/v2/quote', all, OLD, { orderTotal: 100.5 });
      expect(old.status).toBe(200);
      const oldBody = await old.json();
      expect(oldBody).toMatchObject({ policyType: 'SHIPPING', premium: 2.01 });
      const latest = await call('POST', '/v2/quote', all, undefined, { orderTotal: 100.5 });
      expect(latest.status).toBe(201);
      expect((await latest.json()).data).toEqual(oldBody);
    });

    it('price rule terms read flat on 2025-01-01 and fixed on the latest; both are accepted on write (D30)', async () => {
      const list = await (await call('GET', '/v2/pricing/rules', all, LATEST)).json();
      const set = list.data.find((s: { type: string }) => s.type === 'SHIPPING');
      const rules = [{ min: 0, max: 100, terms: { customer: { amount: 3, type: 'flat' } } }];
      const old = await call('PUT', `/v2/pricing/rules/${set.id}`, all, OLD, { rules });
      expect(old.status).toBe(200);
      // The update answers every readable rule set, unwrapped.
      const oldBody = await old.json();
      const updated = oldBody.find((s: { id: string }) => s.id === set.id);
      expect(updated.rules[0].terms.customer).toEqual({ amount: 3, type: 'flat' });
      const latest = await (await call('GET', '/v2/pricing/rules', all)).json();
      const same = latest.data.find((s: { id: string }) => s.id === set.id);
      expect(same.rules[0].terms.customer).toEqual({ amount: 3, type: 'fixed' });
      const oldList = await (await call('GET', '/v2/pricing/rules', all, OLD)).json();
      expect(Array.isArray(oldList)).toBe(true);
      expect(oldList.find((s: { id: string }) => s.id === set.id).rules[0].terms.customer.type).toBe('flat');
    });

    it('403 messages name the earlier scope names on 2025-01-01 only', async () => {
      const weak = await token(['store:read']);
      const old = await call('PUT', '/v1/orders/o-403', weak, OLD, {});
      expect(old.status).toBe(403);
      expect((await old.json()).message).toBe('insufficient scope: requires write_orders');
      const latest = await call('PUT', '/v1/orders/o-403', weak, undefined, {});
      expect((await latest.json()).message).toBe('insufficient scope: requires order:update');
    });

    it('contexts: created with variantKey and name, carrying the key; one per app and store (409)', async () => {
      const other = await createOwner(server.db, 'versions-ctx');
      const tok = (await installWithToken(server, clientId, other.store.id, [...SCOPES])).accessToken;
      const missingKey = await call('POST', '/v2/settings/context', tok, OLD, { name: 'A' });
      expect(missingKey.status).toBe(400);
      expect((await missingKey.json()).issues).toEqual([{ path: 'body.variantKey', message: 'Required' }]);
      const badKey = await call('POST', '/v2/settings/context', tok, OLD, { name: 'A', variantKey: 'no spaces' });
      expect(badKey.status).toBe(400);
      const created = await call('POST', '/v2/settings/context', tok, OLD, { name: 'A', variantKey: 'test-a' });
      expect(created.status).toBe(201);
      const ctx = await created.json();
      expect(ctx).toEqual({
        id: expect.stringMatching(/^ctx_/),
        applicationId: clientId,
        variantKey: 'test-a',
        name: 'A',
        createdAt: expect.any(String),
        updatedAt: null,
      });
      const again = await call('POST', '/v2/settings/context', tok, OLD, { name: 'B', variantKey: 'test-b' });
      expect(again.status).toBe(409);
      const list = await (await call('GET', '/v2/settings/context', tok, OLD)).json();
      expect(list).toEqual([ctx]);
      const view = await (await call('GET', `/v2/settings/context/${ctx.id}`, tok, OLD)).json();
      expect(view).toMatchObject({ id: ctx.id, variantKey: 'test-a' });
      // The latest version never shows it.
      const latest = await (await call('GET', `/v2/settings/context/${ctx.id}`, tok)).json();
      expect(latest.data).not.toHaveProperty('variantKey');
      // Deleting answers {"ok": true} on 2025-01-01.
      const deleted = await call('DELETE', `/v2/settings/context/${ctx.id}`, tok, OLD);
      expect(await deleted.json()).toEqual({ ok: true });
      // A context created on the latest reads "default" on 2025-01-01.
      const fresh = await (await call('POST', '/v2/settings/context', tok, LATEST, { name: 'C' })).json();
      const read = await (await call('GET', `/v2/settings/context/${fresh.data.id}`, tok, OLD)).json();
      expect(read.variantKey).toBe('default');
    });

    it('PUT /v2/settings answers 410 on 2025-01-01 once authenticated, and is an unknown method on the latest', async () => {
      const gone = await call('PUT', '/v2/settings', all, OLD, { sendSmsUpdates: true });
      expect(gone.status).toBe(410);
      expect(await gone.json()).toEqual({
        statusCode: 410,
        error: 'Gone',
        message: expect.stringContaining('partners no longer write merchant default settings'),
      });
      expect((await call('PUT', '/v2/settings', undefined, OLD, {})).status).toBe(401);
      expect((await call('PUT', '/v2/settings', all, LATEST, {})).status).toBe(405);
    });
  });

  it("reports the app's calls per version over 30 days to its owner, errors included, and counts them in the figures", async () => {
    const owner2 = await createOwner(server.db, 'versions-health');
    const app = await createApp(server, owner2.user.id, { requestedScopes: ['store:read'] });
    const tok = (await installWithToken(server, app.clientId, owner2.store.id, ['store:read'])).accessToken;
    const dashboard = await dashboardTokenFor(server, owner2.user.id);
    const before = await server.metrics.registry.getSingleMetricAsString('api_version_requests_total');
    const figure = (text: string, version: string) =>
      Number(new RegExp(`api_version_requests_total\\{version="${version}"\\} (\\d+)`).exec(text)?.[1] ?? 0);
    expect((await call('GET', '/v2/settings', tok, OLD)).status).toBe(200);
    expect((await call('GET', '/v2/settings', tok, OLD)).status).toBe(200);
    expect((await call('GET', '/v2/settings/context/ctx_none', tok, OLD)).status).toBe(404);
    expect((await call('GET', '/v2/settings', tok)).status).toBe(200);
    // An older record outside the 30 days does not count.
    await server.db
      .insertInto('apiVersionCalls')
      .values({
        clientId: app.clientId,
        apiVersion: OLD,
        day: '2020-01-01',
        calls: 99,
        lastCallAt: new Date('2020-01-01'),
      })
      .execute();
    const health = await server.api(dashboard).apps.getApiHealth({ params: { clientId: app.clientId } });
    expect(health.status).toBe(200);
    expect(health.headers.get('api-version')).toBeNull();
    if (health.status !== 200) return;
    const [latest, previous, old] = health.body.data.versions;
    expect(latest).toEqual({
      version: LATEST,
      calls: 1,
      lastCallAt: expect.stringMatching(/Z$/),
      deprecated: false,
      sunset: null,
    });
    expect(previous).toMatchObject({ version: PREVIOUS, calls: 0, deprecated: false, sunset: null });
    expect(old).toEqual({
      version: OLD,
      calls: 3,
      lastCallAt: expect.stringMatching(/Z$/),
      deprecated: true,
      sunset: '2027-12-01T00:00:00.000Z',
    });
    const after = await server.metrics.registry.getSingleMetricAsString('api_version_requests_total');
    expect(figure(after, OLD) - figure(before, OLD)).toBe(3);
    expect(figure(after, LATEST) - figure(before, LATEST)).toBeGreaterThanOrEqual(1);
    // Another user's app answers as a missing one (D9).
    const stranger = await dashboardTokenFor(server, owner.user.id);
    const foreign = await server.api(stranger).apps.getApiHealth({ params: { clientId: app.clientId } });
    expect(foreign.status).toBe(404);
  });

  it('binds an Idempotency-Key to the version that served it (D33): the same key at another version is 409', async () => {
    const headers = { ...bearer(all), 'idempotency-key': 'versioned-key-1' };
    const body = JSON.stringify({ orderTotal: 20 });
    const send = (version: string) =>
      server.request('/v2/quote', {
        method: 'POST',
        headers: { ...headers, 'api-version': version, 'content-type': 'application/json' },
        body,
      });
    const first = await send(OLD);
    expect(first.status).toBe(200);
    const replay = await send(OLD);
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await replay.text()).toBe(await first.text());
    const other = await send(LATEST);
    expect(other.status).toBe(409);
    expect(other.headers.get('api-version')).toBe(LATEST);
  });
});
