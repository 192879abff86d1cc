import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answered, bearer, createApp, createOwner, errorOf, installWithToken, type Owner } from '../harness/fixtures';
import { startTestServer, type TestServer } from '../harness/server';

/** The product catalogue: products, children (variants), bundles (D21), in the D1 envelope. */
describe('products', () => {
  let server: TestServer;
  let owner: Owner;
  let token: string;
  let reader: string;

  beforeAll(async () => {
    server = await startTestServer({}, { rateLimits: { token: 1e9 } });
    owner = await createOwner(server.db, 'products');
    const writerApp = await createApp(server, owner.user.id, { requestedScopes: ['product:update'] });
    token = (await installWithToken(server, writerApp.clientId, owner.store.id, ['product:update'])).accessToken;
    const readerApp = await createApp(server, owner.user.id, { requestedScopes: ['product:read'] });
    reader = (await installWithToken(server, readerApp.clientId, owner.store.id, ['product:read'])).accessToken;
  });
  afterAll(async () => {
    await server.close();
  });

  const path = (id: string) => `/v2/products/${encodeURIComponent(id)}`;
  const put = (id: string, json: unknown) => server.request(path(id), { method: 'PUT', headers: bearer(token), json });
  const child = (parent: string, json: unknown) =>
    server.request(`${path(parent)}/children`, { method: 'POST', headers: bearer(token), json });
  const family = (id: string, t = token) => server.api(t).products.get({ params: { productId: id } });
  /** The family of a product that must answer 200. */
  const familyOf = async (id: string) => answered(await family(id), 200).data;
  const ids = async (id: string) => (await familyOf(id)).map((p) => p.productId);

  it('creates a product (name required) and reads it with every D21 field', async () => {
    const res = await put('shirt', {
      name: 'Shirt',
      description: 'Cotton',
      sku: 'SH-1',
      price: 19.995,
      tax: 2,
      inventoryType: 'FULL',
      inventoryQuantity: 12,
      productImage: 'https://img.example.com/shirt.png',
      productType: 'GROUPED',
      status: 'ACTIVE',
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: { status: 'ok' } });
    const body = answered(await family('shirt', reader), 200);
    expect(body.data).toEqual([
      {
        productId: 'shirt',
        name: 'Shirt',
        description: 'Cotton',
        sku: 'SH-1',
        price: 20,
        tax: 2,
        productImage: 'https://img.example.com/shirt.png',
        parentProductId: null,
        variantId: null,
        status: 'ACTIVE',
        productType: 'GROUPED',
        bundleProductIds: [],
        inventoryType: 'FULL',
        inventoryQuantity: 12,
        inStock: null,
      },
    ]);
  });

  it('answers 400 naming body.name when a new product has no name, and creates nothing', async () => {
    const res = await server.api(token).products.upsert({ params: { productId: 'nameless' }, body: { sku: 'X' } });
    expect(answered(res, 400).issues!.map((i) => i.path)).toEqual(['body.name']);
    expect((await family('nameless')).status).toBe(404);
  });

  it('updates only the fields sent', async () => {
    await put('mug', { name: 'Mug', sku: 'MUG', inventoryType: 'SIMPLE', inStock: true });
    await put('mug', { inStock: false });
    const [mug] = await familyOf('mug');
    expect(mug).toMatchObject({ name: 'Mug', sku: 'MUG', inventoryType: 'SIMPLE', inStock: false });
  });

  it('creates children, reads [product, ...children], and refuses a second product with the same id (409)', async () => {
    await put('tee', { name: 'Tee' });
    expect((await child('tee', { productId: 'tee-s', name: 'Tee S', variantId: 'v-s', status: 'DRAFT' })).status).toBe(
      200,
    );
    expect((await child('tee', { productId: 'tee-m', name: 'Tee M' })).status).toBe(200);
    expect(await ids('tee')).toEqual(['tee', 'tee-s', 'tee-m']);
    const [, small] = await familyOf('tee');
    expect(small).toMatchObject({ parentProductId: 'tee', variantId: 'v-s', status: 'DRAFT' });
    const dup = await child('tee', { productId: 'tee-s', name: 'Again' });
    expect(dup.status).toBe(409);
    expect(await dup.json()).toMatchObject({ statusCode: 409, error: 'Conflict' });
    // Another product's id is taken too.
    expect((await child('tee', { productId: 'mug', name: 'Mug as child' })).status).toBe(409);
  });

  it('answers 404 for a child of an unknown product', async () => {
    expect((await child('no-such', { productId: 'x', name: 'X' })).status).toBe(404);
  });

  it('bundles may only name existing children of the same parent (400 naming the index)', async () => {
    await put('kit', { name: 'Kit' });
    await child('kit', { productId: 'kit-a', name: 'A' });
    await child('kit', { productId: 'kit-b', name: 'B' });
    const bad = await child('kit', {
      productId: 'kit-bundle',
      name: 'Bundle',
      bundleProductIds: ['kit-a', 'tee-s', 'nope'],
    });
    expect(bad.status).toBe(400);
    expect((await errorOf(bad)).issues!.map((i) => i.path)).toEqual([
      'body.bundleProductIds.1',
      'body.bundleProductIds.2',
    ]);
    expect(await ids('kit')).toEqual(['kit', 'kit-a', 'kit-b']);
    const ok = await child('kit', {
      productId: 'kit-bundle',
      name: 'Bundle',
      productType: 'GROUPED',
      bundleProductIds: ['kit-a', 'kit-b'],
    });
    expect(ok.status).toBe(200);
    const bundle = (await familyOf('kit')).find((p) => p.productId === 'kit-bundle');
    expect(bundle?.bundleProductIds).toEqual(['kit-a', 'kit-b']);
  });

  it('bundle/remove drops the named ids; repeating it succeeds and changes nothing', async () => {
    await put('box', { name: 'Box' });
    for (const id of ['box-1', 'box-2', 'box-3']) await child('box', { productId: id, name: id });
    await child('box', { productId: 'box-set', name: 'Set', bundleProductIds: ['box-1', 'box-2', 'box-3'] });
    const remove = () =>
      server.request(`${path('box-set')}/bundle/remove`, {
        method: 'DELETE',
        headers: bearer(token),
        json: { productIds: ['box-2', 'not-in-bundle'] },
      });
    expect((await remove()).status).toBe(200);
    expect((await remove()).status).toBe(200);
    const [set] = await familyOf('box-set');
    expect(set!.bundleProductIds).toEqual(['box-1', 'box-3']);
    const empty = await server.request(`${path('box-set')}/bundle/remove`, {
      method: 'DELETE',
      headers: bearer(token),
      json: { productIds: [] },
    });
    expect(empty.status).toBe(400);
    const unknown = await server.request(`${path('no-box')}/bundle/remove`, {
      method: 'DELETE',
      headers: bearer(token),
      json: { productIds: ['a'] },
    });
    expect(unknown.status).toBe(404);
  });

  it('a child is deleted only through its own parent, and leaves the bundles it was in', async () => {
    await put('lamp', { name: 'Lamp' });
    await put('desk', { name: 'Desk' });
    await child('lamp', { productId: 'lamp-red', name: 'Red' });
    await child('lamp', { productId: 'lamp-set', name: 'Set', bundleProductIds: ['lamp-red'] });
    const through = (parent: string, c: string) =>
      server.request(`${path(parent)}/children/${c}`, { method: 'DELETE', headers: bearer(token) });
    expect((await through('desk', 'lamp-red')).status).toBe(404);
    expect((await through('lamp', 'desk')).status).toBe(404);
    expect(await ids('lamp')).toEqual(['lamp', 'lamp-red', 'lamp-set']);
    const res = await through('lamp', 'lamp-red');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: { status: 'ok' } });
    expect(await ids('lamp')).toEqual(['lamp', 'lamp-set']);
    expect((await familyOf('lamp-set'))[0]!.bundleProductIds).toEqual([]);
    expect((await through('lamp', 'lamp-red')).status).toBe(404);
  });

  it('deleting a product deletes its children', async () => {
    await put('sofa', { name: 'Sofa' });
    await child('sofa', { productId: 'sofa-blue', name: 'Blue' });
    const res = await server.request(path('sofa'), { method: 'DELETE', headers: bearer(token) });
    expect(res.status).toBe(200);
    expect((await family('sofa')).status).toBe(404);
    expect((await family('sofa-blue')).status).toBe(404);
    expect(
      await server.db
        .selectFrom('products')
        .select('productId')
        .where('storeId', '=', owner.store.id)
        .where('productId', 'like', 'sofa%')
        .execute(),
    ).toEqual([]);
    expect((await server.request(path('sofa'), { method: 'DELETE', headers: bearer(token) })).status).toBe(404);
  });

  it('product:read reads but cannot write (403 naming product:update)', async () => {
    const res = await server.api(reader).products.upsert({ params: { productId: 'shirt' }, body: { name: 'x' } });
    expect(answered(res, 403).message).toContain('product:update');
  });

  it('two racing creates of one product make one row', async () => {
    const statuses = await Promise.all(Array.from({ length: 8 }, (_, i) => put('race', { name: `Race ${i}` })));
    expect(statuses.map((r) => r.status)).toEqual(Array(8).fill(200));
    expect(await ids('race')).toEqual(['race']);
  });
});
