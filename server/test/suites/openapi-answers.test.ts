import { SCOPES } from '@protection-service/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, createOwner, installWithToken } from '../harness/fixtures';
import { type Answer, AnswerChecker } from '../harness/openapi-answers';
import { startTestServer, type TestServer } from '../harness/server';

/**
 * The harness checks every answer of the run against the committed openapi.json with Ajv
 * (harness/openapi-answers.ts). These tests show the check refuses what the document does not
 * describe, and that the answers it once refused are now described.
 */
describe('answers checked against openapi.json', () => {
  const checker = new AnswerChecker();
  const json = (value: unknown) => Buffer.from(JSON.stringify(value));
  const answer = (a: Partial<Answer>): Answer => ({
    method: 'GET',
    url: '/v2/settings',
    status: 401,
    contentType: 'application/json; charset=utf-8',
    body: json({ statusCode: 401, message: 'missing bearer token', error: 'Unauthorized' }),
    ...a,
  });

  it('accepts a documented answer', () => {
    expect(checker.check(answer({}))).toBeUndefined();
  });

  it('refuses an undocumented status, a body off its schema, an undocumented content type', () => {
    expect(checker.check(answer({ status: 418 }))).toMatch(/status 418 is not documented for GET \/v2\/settings/);
    expect(checker.check(answer({ body: json({ statusCode: 401, message: 'x' }) }))).toMatch(/does not match/);
    expect(checker.check(answer({ body: json({ statusCode: 401, message: 'x', error: 'y', extra: 1 }) }))).toMatch(
      /does not match/,
    );
    expect(checker.check(answer({ contentType: 'text/html' }))).toMatch(/content type text\/html is not documented/);
    expect(checker.check(answer({ body: Buffer.from('not json') }))).toMatch(/not JSON/);
  });

  it('refuses an answer carrying a relied-on header its operation and status do not declare', () => {
    expect(checker.check(answer({ headers: ['X-Request-Id', 'Content-Type'] }))).toBeUndefined();
    expect(checker.check(answer({ headers: ['x-request-id', 'location'] }))).toMatch(/header location not declared/);
    // 415 is answered while the body is read, before the rate limiter counts the request.
    expect(
      checker.check(answer({ method: 'PUT', url: '/v1/orders/o-1', status: 415, headers: ['ratelimit-limit'] })),
    ).toMatch(/header ratelimit-limit not declared/);
    const ok = json({ statusCode: 404, message: 'no such route', error: 'Not Found' });
    expect(checker.check(answer({ url: '/v1/nope', status: 404, body: ok, headers: ['etag'] }))).toMatch(
      /header etag not declared/,
    );
  });

  it('refuses a success on a path no operation has, and accepts only a D2 error there', () => {
    expect(checker.check(answer({ url: '/v1/nope', status: 200, body: json({}) }))).toMatch(/no operation/);
    const notFound = { statusCode: 404, message: 'no such route', error: 'Not Found' };
    expect(checker.check(answer({ url: '/v1/nope', status: 404, body: json(notFound) }))).toBeUndefined();
    expect(checker.check(answer({ url: '/v1/nope', status: 404, body: json({ nope: 1 }) }))).toMatch(/does not match/);
  });

  describe('against the real server', () => {
    let server: TestServer;
    let token: string;
    const seen = (res: Response, method: string, url: string, body: string) =>
      checker.check({
        method,
        url,
        status: res.status,
        contentType: res.headers.get('content-type') ?? undefined,
        body: Buffer.from(body),
        headers: [...res.headers.keys()],
      });

    beforeAll(async () => {
      server = await startTestServer();
      const owner = await createOwner(server.db, 'openapi-answers');
      const app = await createApp(server, owner.user.id, { requestedScopes: [...SCOPES] });
      token = (await installWithToken(server, app.clientId, owner.store.id, [...SCOPES])).accessToken;
    });
    afterAll(() => server.close());

    it('describes an offline claim whose purchase date is a date-time (no ambiguous oneOf)', async () => {
      for (const dateOfPurchase of ['2026-01-01T10:00:00Z', '2026-01-01']) {
        const res = await server.request('/v1/claims/offline', {
          method: 'POST',
          headers: { authorization: `Bearer ${token}` },
          json: {
            customer: { email: 'h@example.com' },
            items: [{ name: 'Item' }],
            warranty: { dateOfPurchase },
            salesChannel: 'IN_STORE',
            claimCategory: 'WARRANTY',
          },
        });
        const body = await res.text();
        expect(res.status, body).toBe(200);
        expect(JSON.parse(body).payload.warranty.dateOfPurchase).toBe(dateOfPurchase);
        expect(res.headers.get('location')).toMatch(/^\/v1\/claims\//);
        expect(seen(res, 'POST', '/v1/claims/offline', body)).toBeUndefined();
      }
    });

    it('describes 413 for a body over the limit, on API and OAuth routes alike', async () => {
      const big = JSON.stringify({ padding: 'x'.repeat(1_100_000) });
      for (const url of ['/v2/quote', '/v1/oauth/token', '/v1/orders/o-413']) {
        const method = url.startsWith('/v1/orders') ? 'PUT' : 'POST';
        const res = await server.request(url, {
          method,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: big,
        });
        const body = await res.text();
        expect(res.status, body).toBe(413);
        expect(seen(res, method, url, body)).toBeUndefined();
      }
    });
  });
});
