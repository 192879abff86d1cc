import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { createApp, createOwner, installWithToken } from '../../server/test/harness/fixtures';
import { startTestServer, type TestServer } from '../../server/test/harness/server';
import { createClient, SDK_API_VERSION } from '../src/index';
import * as v20250101 from '../src/versions/2025-01-01';

/** The SDK's dated versions (D44): the default version, the header it sends, and the types of 2025-01-01. */
describe('SDK API versions', () => {
  let server: TestServer;
  let token: string;
  const seen: (string | null)[] = [];
  const recording =
    (next: (url: string, init: RequestInit) => Promise<Response>) => (url: string, init: RequestInit) => {
      seen.push(new Headers(init.headers).get('api-version'));
      return next(url, init);
    };

  beforeAll(async () => {
    server = await startTestServer();
    const owner = await createOwner(server.db, 'sdk-versions');
    const app = await createApp(server, owner.user.id, {
      requestedScopes: ['store:read', 'quote:read', 'pricing:shipping-insurance:read', 'partner-context:update'],
    });
    token = (
      await installWithToken(server, app.clientId, owner.store.id, [
        'store:read',
        'quote:read',
        'pricing:shipping-insurance:read',
        'partner-context:update',
      ])
    ).accessToken;
  });
  afterAll(async () => {
    await server.close();
  });

  it('asks for the version it was built against on versioned routes only, and for none with null', async () => {
    seen.length = 0;
    const client = createClient({ baseUrl: server.baseUrl, accessToken: token, middleware: [recording] });
    expect(SDK_API_VERSION).toBe('2027-01-15');
    const res = await client.settings.get();
    expect(res.status).toBe(200);
    expect(res.headers.get('api-version')).toBe('2027-01-15');
    await client.public.getInsurance({ query: { store_url: 'nowhere.example.com', subtotal: 1 } });
    expect(seen).toEqual(['2027-01-15', null]);
    seen.length = 0;
    const pinned = createClient({
      baseUrl: server.baseUrl,
      accessToken: token,
      apiVersion: null,
      middleware: [recording],
    });
    await pinned.settings.get();
    expect(seen).toEqual([null]);
  });

  it('2025-01-01: typed and answered in the old shapes (flat, no envelope, 200 quotes, 410 settings write)', async () => {
    const old = v20250101.createClient({ baseUrl: server.baseUrl, accessToken: token });
    const rules = await old.pricing.list();
    expect(rules.status).toBe(200);
    expect(rules.headers.get('api-version')).toBe('2025-01-01');
    expect(rules.headers.get('deprecation')).toBe('@1796083200');
    if (rules.status === 200) {
      // The type test: the old client reads `flat`, never `fixed`.
      expectTypeOf(rules.body[0]!.rules[0]!.terms.customer!.type).toEqualTypeOf<'flat' | 'percentage'>();
      expect(Array.isArray(rules.body)).toBe(true);
      const types = rules.body.flatMap((s) => s.rules.map((r) => r.terms.customer?.type));
      expect(types.every((t) => t === undefined || t === 'flat' || t === 'percentage')).toBe(true);
    }
    const quote = await old.quote.create({ body: { orderTotal: 50 } });
    expect(quote.status).toBe(200);
    if (quote.status === 200) expectTypeOf(quote.body.premium).toEqualTypeOf<number>();
    const created = await old.settings.createContext({ body: { name: 'Old', variantKey: 'old-a' } });
    expect(created.status).toBe(201);
    if (created.status === 201) {
      expectTypeOf(created.body.variantKey).toEqualTypeOf<string>();
      expect(created.body.variantKey).toBe('old-a');
    }
    const gone = await old.settings.replace({ body: {} });
    expect(gone.status).toBe(410);
  });

  it('types differ where the versions differ', () => {
    type Latest = Awaited<ReturnType<ReturnType<typeof createClient>['pricing']['list']>>;
    type Old = Awaited<ReturnType<ReturnType<typeof v20250101.createClient>['pricing']['list']>>;
    type LatestType = Extract<Latest, { status: 200 }>['body']['data'][number]['rules'][number]['terms']['brand'];
    type OldType = Extract<Old, { status: 200 }>['body'][number]['rules'][number]['terms']['brand'];
    expectTypeOf<NonNullable<LatestType>['type']>().toEqualTypeOf<'fixed' | 'percentage'>();
    expectTypeOf<NonNullable<OldType>['type']>().toEqualTypeOf<'flat' | 'percentage'>();
  });
});
