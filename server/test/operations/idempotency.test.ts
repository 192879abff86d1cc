import { contract, SCOPES } from '@protection-service/contract';
import type { AppRoute } from '@ts-rest/core';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdempotencySweeper, takesIdempotencyKey } from '../../src/http/idempotency';
import {
  bearer,
  createApp,
  createOwner,
  createTestStoreOf,
  errorOf,
  installWithToken,
  type Owner,
} from '../harness/fixtures';
import { startTestServer, type TestServer } from '../harness/server';

/**
 * D33 Idempotency-Key, one mechanism driven by route metadata: tested on the implemented
 * `POST /v2/products/:productId/children`, and shown to hold on every token POST of the
 * contract, including routes that still answer 501.
 */
/** A PNG of one pixel (D56 uploads in the key tests). */
const ONE_PIXEL_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

describe('Idempotency-Key (D33)', () => {
  let server: TestServer;
  let owner: Owner;
  let token: string;
  let otherToken: string;
  /** D45: a token of a test store of the same app, for the routes of test stores only. */
  let testToken: string;

  beforeAll(async () => {
    server = await startTestServer({}, { rateLimits: { token: 1e9 } });
    owner = await createOwner(server.db, 'idem');
    const app = await createApp(server, owner.user.id, { requestedScopes: [...SCOPES] });
    ({ accessToken: token } = await installWithToken(server, app.clientId, owner.store.id, [...SCOPES]));
    const testStore = await createTestStoreOf(server, owner.user.id, app.clientId);
    testToken = (await installWithToken(server, app.clientId, testStore.id, [...SCOPES])).accessToken;
    const other = await createApp(server, owner.user.id, { requestedScopes: [...SCOPES] });
    otherToken = (await installWithToken(server, other.clientId, owner.store.id, [...SCOPES])).accessToken;
    for (const id of ['bag', 'hat']) {
      await server.request(`/v2/products/${id}`, { method: 'PUT', headers: bearer(token), json: { name: id } });
    }
  });
  afterAll(async () => {
    await server.close();
  });

  const addChild = (key: string | undefined, body: string, parent = 'bag', t = token) =>
    server.request(`/v2/products/${parent}/children`, {
      method: 'POST',
      headers: {
        ...bearer(t),
        'content-type': 'application/json',
        ...(key === undefined ? {} : { 'idempotency-key': key }),
      },
      body,
    });
  const children = async (parent = 'bag') =>
    (
      await server.db
        .selectFrom('products')
        .select('productId')
        .where('storeId', '=', owner.store.id)
        .where('parentProductId', '=', parent)
        .orderBy('productId')
        .execute()
    ).map((r) => r.productId);
  const answer = async (res: Response) => ({
    status: res.status,
    contentType: res.headers.get('content-type'),
    replayed: res.headers.get('idempotent-replayed'),
    bytes: Buffer.from(await res.arrayBuffer()).toString('hex'),
  });

  it('replays the first answer byte for byte, with Idempotent-Replayed, without running the handler', async () => {
    const body = JSON.stringify({ productId: 'bag-red', name: 'Red' });
    const first = await answer(await addChild('key-1', body));
    expect(first).toMatchObject({ status: 200, replayed: null });
    // Were the handler to run again, it would now answer 409 (the child exists) or, once the
    // child is gone, create it again: neither happens.
    await server.db.deleteFrom('products').where('productId', '=', 'bag-red').execute();
    const again = await answer(await addChild('key-1', body));
    expect(again).toEqual({ ...first, replayed: 'true' });
    expect(await children()).toEqual([]);
    // The same body with keys reordered and other whitespace is the same request.
    const reordered = await answer(await addChild('key-1', '{ "name": "Red",  "productId": "bag-red" }'));
    expect(reordered).toEqual({ ...first, replayed: 'true' });
  });

  it('answers 409 for the same key with a different body, or on a different route, and changes nothing', async () => {
    await addChild('key-2', JSON.stringify({ productId: 'bag-blue', name: 'Blue' }));
    const other = await addChild('key-2', JSON.stringify({ productId: 'bag-green', name: 'Green' }));
    expect(other.status).toBe(409);
    expect(await other.json()).toEqual({
      statusCode: 409,
      message: 'this Idempotency-Key was used with a different request',
      error: 'Conflict',
    });
    const elsewhere = await addChild('key-2', JSON.stringify({ productId: 'bag-blue', name: 'Blue' }), 'hat');
    expect(elsewhere.status).toBe(409);
    expect(await children()).toEqual(['bag-blue']);
    expect(await children('hat')).toEqual([]);
  });

  it('keys belong to one installation: another app may use the same key', async () => {
    await addChild('key-3', JSON.stringify({ productId: 'bag-a', name: 'A' }));
    const res = await addChild('key-3', JSON.stringify({ productId: 'bag-b', name: 'B' }), 'bag', otherToken);
    expect(res.status).toBe(200);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
    expect(await children()).toEqual(expect.arrayContaining(['bag-a', 'bag-b']));
  });

  it('answers 409 while a twin is still running, and the first still completes', async () => {
    const body = JSON.stringify({ productId: 'bag-run', name: 'Run' });
    let first: Promise<Response> | undefined;
    await server.db.transaction().execute(async (trx) => {
      // Hold the parent row so the first request blocks inside its handler.
      await sql`select 1 from products where product_id = 'bag' for update`.execute(trx);
      first = addChild('key-4', body);
      await expect
        .poll(
          async () =>
            (
              await server.db
                .selectFrom('idempotencyKeys')
                .select('state')
                .where('key', '=', 'key-4')
                .executeTakeFirst()
            )?.state,
        )
        .toBe('running');
      const twin = await addChild('key-4', body);
      expect(twin.status).toBe(409);
      expect((await errorOf(twin)).message).toBe('a request with this Idempotency-Key is still in flight');
    });
    expect((await first!).status).toBe(200);
    expect((await addChild('key-4', body)).headers.get('idempotent-replayed')).toBe('true');
  });

  it('of ten concurrent twins exactly one runs; the others are replays or 409 in flight', async () => {
    const body = JSON.stringify({ productId: 'bag-twin', name: 'Twin' });
    const answers = await Promise.all(Array.from({ length: 10 }, () => addChild('key-5', body).then(answer)));
    const ran = answers.filter((a) => a.status === 200 && a.replayed === null);
    expect(ran).toHaveLength(1);
    for (const a of answers) {
      if (a.status === 409) continue;
      expect(a).toEqual({ ...ran[0]!, replayed: a.replayed });
    }
    expect((await children()).filter((c) => c === 'bag-twin')).toHaveLength(1);
  });

  it('keeps a final 4xx answer too, and replays it', async () => {
    const body = JSON.stringify({ productId: 'x-1', name: 'X' });
    const first = await answer(await addChild('key-6', body, 'no-such-parent'));
    expect(first.status).toBe(404);
    await server.request('/v2/products/no-such-parent', { method: 'PUT', headers: bearer(token), json: { name: 'n' } });
    expect(await answer(await addChild('key-6', body, 'no-such-parent'))).toEqual({ ...first, replayed: 'true' });
  });

  it('does not keep a transient failure: a retry with the same key runs again', async () => {
    await sql`
      create function refuse_child() returns trigger language plpgsql as $$
      begin raise exception 'refused'; end $$;
      create trigger refuse_child before insert on products for each row
        when (new.product_id = 'bag-flaky') execute function refuse_child();
    `.execute(server.db);
    const body = JSON.stringify({ productId: 'bag-flaky', name: 'Flaky' });
    try {
      expect((await addChild('key-7', body)).status).toBe(500);
    } finally {
      await sql`drop trigger refuse_child on products; drop function refuse_child()`.execute(server.db);
    }
    const retry = await addChild('key-7', body);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(await children()).toContain('bag-flaky');
  });

  it('refuses a key outside 1-255 printable characters with 400 naming the header, and writes nothing', async () => {
    const body = JSON.stringify({ productId: 'bag-badkey', name: 'Bad' });
    for (const key of ['k'.repeat(256), 'with space', 'tab\there', '']) {
      const res = await addChild(key, body);
      expect(res.status, JSON.stringify(key)).toBe(400);
      const err = await errorOf(res);
      expect(err.error).toBe('Bad Request');
      // An over-long key breaks the length bound (D47) and the pattern: both name the header.
      expect([...new Set(err.issues!.map((i) => i.path))]).toEqual(['headers.idempotency-key']);
    }
    expect(await children()).not.toContain('bag-badkey');
    expect((await addChild('k'.repeat(255), body)).status).toBe(200);
  });

  it('forgets keys after 24 hours; the sweeper deletes them', async () => {
    await addChild('key-8', JSON.stringify({ productId: 'bag-old', name: 'Old' }));
    await sql`update idempotency_keys set created_at = now() - interval '25 hours' where key = 'key-8'`.execute(
      server.db,
    );
    const fresh = await addChild('key-8', JSON.stringify({ productId: 'bag-new', name: 'New' }));
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get('idempotent-replayed')).toBeNull();
    await sql`update idempotency_keys set created_at = now() - interval '25 hours' where key = 'key-8'`.execute(
      server.db,
    );
    const sweeper = new IdempotencySweeper(server.db);
    try {
      expect(await sweeper.sweep(1)).toBe(1);
    } finally {
      sweeper.stop();
    }
    const left = await server.db.selectFrom('idempotencyKeys').select('key').where('key', '=', 'key-8').execute();
    expect(left).toEqual([]);
    expect((await server.db.selectFrom('idempotencyKeys').select('key').execute()).length).toBeGreaterThan(0);
  });

  it('a request without the header runs every time', async () => {
    const body = JSON.stringify({ productId: 'bag-nokey', name: 'No key' });
    expect((await addChild(undefined, body)).status).toBe(200);
    expect((await addChild(undefined, body)).status).toBe(409);
  });

  describe('every token POST of the contract, by metadata alone', () => {
    const routes = Object.values(contract as unknown as Record<string, Record<string, AppRoute>>).flatMap((g) =>
      Object.values(g),
    );
    const keyed = routes.filter(takesIdempotencyKey);
    const urlOf = (r: AppRoute) => r.path.replace(/:(\w+)/g, 'idem-$1');
    // The helpers of test stores take a test token; a live one is refused before the key is read (D45).
    const tokenOf = (r: AppRoute) => ((r.metadata as { mode?: string }).mode === 'test' ? testToken : token);
    // An upload (D56) is multipart: its body is a photo, told apart from another by its bytes.
    const bodyOf = (r: AppRoute, n: number): unknown => {
      if (!('contentType' in r) || r.contentType !== 'multipart/form-data') return { orderTotal: n };
      const form = new FormData();
      const png = Buffer.concat([Buffer.from(ONE_PIXEL_PNG, 'base64'), Buffer.alloc(n - 10)]);
      form.set('file', new Blob([png], { type: 'image/png' }), 'photo.png');
      form.set('purpose', 'claim_evidence');
      return form;
    };

    it('is exactly the POST routes with token auth', () => {
      const expected = routes.filter((r) => r.method === 'POST' && (r.metadata as { auth: string }).auth === 'token');
      expect(keyed.map((r) => r.path).sort()).toEqual(expected.map((r) => r.path).sort());
      expect(keyed.length).toBeGreaterThan(5);
    });

    it.each(keyed.map((r) => [`${r.method} ${r.path}`, r] as const))('%s validates the key', async (_n, route) => {
      const res = await server.request(urlOf(route), {
        method: 'POST',
        headers: { ...bearer(tokenOf(route)), 'idempotency-key': 'k'.repeat(300) },
        json: bodyOf(route, 10) as object,
      });
      expect(res.status).toBe(400);
      expect((await errorOf(res)).issues![0]!.path).toBe('headers.idempotency-key');
    });

    it.each(keyed.map((r) => [`${r.method} ${r.path}`, r] as const))(
      '%s replays, and refuses a different body',
      async (_n, route) => {
        const send = (n: number) =>
          server.request(urlOf(route), {
            method: 'POST',
            headers: { ...bearer(tokenOf(route)), 'idempotency-key': `every-${route.path}` },
            json: bodyOf(route, n) as object,
          });
        const first = await answer(await send(10));
        if (first.status >= 500 && first.status !== 501) throw new Error(`${route.path} answered ${first.status}`);
        expect(await answer(await send(10))).toEqual({ ...first, replayed: 'true' });
        expect((await send(11)).status).toBe(409);
      },
    );

    it('POST /v2/quote gets it with no code of its own (it may still answer 501)', () => {
      expect(keyed.map((r) => r.path)).toContain('/v2/quote');
    });

    it('PUT and non-token POST routes ignore the header (PUT is idempotent by nature)', async () => {
      const put = () =>
        server.request('/v2/products/hat', {
          method: 'PUT',
          headers: { ...bearer(token), 'idempotency-key': 'k'.repeat(300) },
          json: { name: 'Hat' },
        });
      const res = await put();
      expect(res.status).toBe(200);
      expect(res.headers.get('idempotent-replayed')).toBeNull();
    });
  });
});
