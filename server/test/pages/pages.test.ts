import { createHash, randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { migrations } from '@protection-service/migrations';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invitationLinks, invitationUrl } from '../../src/domain/team/members';
import { createLogger } from '../../src/logger';
import { claimStore } from '../harness/claims';
import { gpsJpeg } from '../harness/files';
import {
  answered,
  createApp,
  createOwner,
  dashboardTokenFor,
  type Owner,
  withinOneRateWindow,
} from '../harness/fixtures';
import { startTestServer, type TestServer } from '../harness/server';

/**
 * The pages over plain HTTP (D40, D41): what a browser test cannot see well, or what must
 * hold wherever Chromium is missing — redirects and their absence, headers, CSRF, rate limits,
 * 404s for forged links, logs. The browser tests (*.browser.test.ts) drive the same pages.
 */

const REDIRECT_URI = 'https://partner.example.com/callback';
const challenge = () => createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');

/** A fetch that keeps cookies and never follows redirects, as a test browser. */
function browser(server: TestServer) {
  const jar = new Map<string, string>();
  return {
    jar,
    async fetch(path: string, init: RequestInit & { form?: Record<string, string> } = {}) {
      const { form, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (jar.size > 0) headers.set('cookie', [...jar].map(([k, v]) => `${k}=${v}`).join('; '));
      if (form) headers.set('content-type', 'application/x-www-form-urlencoded');
      const res = await fetch(server.baseUrl + path, {
        ...rest,
        headers,
        redirect: 'manual',
        body: form ? new URLSearchParams(form).toString() : rest.body,
        method: form ? 'POST' : rest.method,
      });
      for (const cookie of res.headers.getSetCookie()) {
        const [pair] = cookie.split(';');
        const eq = pair!.indexOf('=');
        jar.set(pair!.slice(0, eq), pair!.slice(eq + 1));
      }
      return res;
    },
  };
}

/** The value of a hidden field of a page. */
const field = (html: string, name: string) =>
  new RegExp(`name="${name}" value="([^"]*)"`)
    .exec(html)?.[1]
    ?.replaceAll('&quot;', '"')
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&');

describe('pages over HTTP (D40, D41)', () => {
  let server: TestServer;
  let owner: Owner;
  let clientId: string;
  let lines = '';
  const authorize = (params: Record<string, string>) => `/v1/oauth/authorize?${new URLSearchParams(params)}`;
  const goodParams = () => ({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    state: 'st-1',
    code_challenge: challenge(),
    code_challenge_method: 'S256',
  });

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines += chunk.toString();
        done();
      },
    });
    server = await startTestServer({}, { logger: createLogger('info', sink), rateLimits: { auth: 5 } });
    owner = await createOwner(server.db, 'pages');
    clientId = (await createApp(server, owner.user.id, { redirectUris: [REDIRECT_URI] })).clientId;
  });
  afterAll(async () => {
    await server.close();
  });

  it('names GET /v1/oauth/authorize as the authorization endpoint of the metadata (D17, D40)', async () => {
    const meta = answered(await server.api().oauth.discovery(), 200);
    expect(meta.authorization_endpoint).toBe(`${server.baseUrl}/v1/oauth/authorize`);
    const res = await server.request(authorize(goodParams()));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('serves every page with no-store, no framing, no referrer, noindex and a policy without script', async () => {
    const res = await server.request(authorize(goodParams()));
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('x-robots-tag')).toMatch(/noindex/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toMatch(/script-src|unsafe-inline/);
    const html = await res.text();
    expect(html).not.toMatch(/<script|\son\w+=/i);
    expect(res.headers.get('x-request-id')).toBeTruthy();
    // The session cookie: HttpOnly, SameSite=Lax, not Secure over plain HTTP.
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('ps_session='))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Max-Age=43200/);
    const css = await server.request('/pages/style.css');
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
  });

  it('answers an unknown client or an unregistered redirect URI with a 400 page, never a redirect', async () => {
    for (const params of [
      { ...goodParams(), redirect_uri: 'https://evil.example.com/callback' },
      { ...goodParams(), redirect_uri: `${REDIRECT_URI}/` },
      { ...goodParams(), client_id: 'svc_app_unknown' },
      { response_type: 'code' },
    ]) {
      const res = await server.request(authorize(params), { redirect: 'manual' });
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect(await res.text()).toContain('This install link does not work');
    }
  });

  it('sends other faults back to the redirect URI with error and state (RFC 6749 §4.1.2.1)', async () => {
    const cases: [Record<string, string>, string][] = [
      [{ ...goodParams(), response_type: 'token' }, 'unsupported_response_type'],
      [{ ...goodParams(), scope: 'order:read no-such-scope' }, 'invalid_scope'],
      [{ ...goodParams(), code_challenge_method: 'plain' }, 'invalid_request'],
      [(({ code_challenge: _c, ...p }) => p)(goodParams()), 'invalid_request'],
    ];
    for (const [params, error] of cases) {
      const res = await server.request(authorize(params), { redirect: 'manual' });
      expect(res.status, error).toBe(303);
      const location = new URL(res.headers.get('location')!);
      expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
      expect(location.searchParams.get('error')).toBe(error);
      expect(location.searchParams.get('state')).toBe('st-1');
    }
    // A parameter sent twice is invalid_request too.
    const twice = `${authorize(goodParams())}&scope=order:read&scope=store:read`;
    const res = await server.request(twice, { redirect: 'manual' });
    expect(new URL(res.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
  });

  it('signs in with a new session id, refuses a forged CSRF token, and signs out for good', async () => {
    const b = browser(server);
    const page = await b.fetch(authorize(goodParams()));
    const html = await page.text();
    const csrf = field(html, 'csrf')!;
    const anonymous = b.jar.get('ps_session');
    expect(csrf).toBeTruthy();

    // A forged token, and a missing one: 403, nothing changes.
    for (const forged of [`${csrf.slice(0, -2)}xx`, '']) {
      const res = await b.fetch('/v1/oauth/authorize/sign-in', {
        form: { csrf: forged, continue: field(html, 'continue')!, email: owner.user.email, password: owner.password },
      });
      expect(res.status).toBe(403);
      expect(res.headers.get('location')).toBeNull();
    }
    expect(b.jar.get('ps_session')).toBe(anonymous);

    const wrong = await b.fetch('/v1/oauth/authorize/sign-in', {
      form: { csrf, continue: field(html, 'continue')!, email: owner.user.email, password: 'not-it' },
    });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain('Wrong e-mail or password.');

    const signedIn = await b.fetch('/v1/oauth/authorize/sign-in', {
      form: { csrf, continue: field(html, 'continue')!, email: owner.user.email, password: owner.password },
    });
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get('location')).toMatch(/^\/v1\/oauth\/authorize\?response_type=code&client_id=/);
    const session = b.jar.get('ps_session')!;
    expect(session).not.toBe(anonymous);

    const consent = await (await b.fetch(signedIn.headers.get('location')!)).text();
    expect(consent).toContain('Install Test App?');
    // The consent form may be redirected to the partner: its origin is allowed as a form target.
    const consentPage = await b.fetch(signedIn.headers.get('location')!);
    expect(consentPage.headers.get('content-security-policy')).toContain(
      "form-action 'self' https://partner.example.com",
    );

    // The CSRF token of the anonymous session is not the signed-in one's.
    const stale = await b.fetch('/v1/oauth/authorize/consent', {
      form: { ...goodParams(), store: owner.store.id, csrf, decision: 'install' },
    });
    expect(stale.status).toBe(403);

    const out = await b.fetch('/v1/oauth/authorize/sign-out', {
      form: { csrf: field(consent, 'csrf')!, continue: new URLSearchParams(goodParams()).toString() },
    });
    expect(out.status).toBe(303);
    // The old cookie, replayed after sign-out, opens nothing.
    const replay = await fetch(server.baseUrl + authorize(goodParams()), {
      headers: { cookie: `ps_session=${session}` },
    });
    expect(await replay.text()).toContain('Sign in to install Test App');
  });

  it('answers a form body too large for the page with a page, not JSON', async () => {
    const res = await server.request('/v1/oauth/authorize/sign-in', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `csrf=x&email=${'a'.repeat(20_000)}`,
    });
    expect(res.status).toBe(413);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
  });

  it('counts page sign-ins with POST /v1/auth/login per address (D4, D8): 429 past the limit', async () => {
    const b = browser(server);
    const html = await (await b.fetch(authorize(goodParams()))).text();
    const form = {
      csrf: field(html, 'csrf')!,
      continue: field(html, 'continue')!,
      email: 'x@example.com',
      password: 'x',
    };
    // Seven attempts and the JSON sign-in in one clock minute: split across two, neither would pass the limit of 5.
    await withinOneRateWindow();
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await b.fetch('/v1/oauth/authorize/sign-in', { form })).status);
    expect(statuses).toContain(429);
    const json = await server.request('/v1/auth/login', {
      method: 'POST',
      json: { email: 'x@example.com', password: 'x' },
    });
    expect(json.status).toBe(429);
  });

  it('opens a claim by its link and answers 404 to a forged, altered or malformed one (D41)', async () => {
    const s = await claimStore(server, 'pages-claims');
    await s.putOrder('o-1');
    const claimId = await s.fileId('o-1');
    const record = answered(await s.api.claims.get({ params: { claimId } }), 200);
    const url = new URL(record.viewClaimUrl);
    expect(url.pathname).toMatch(/^\/claims\/view\/[0-9a-f]{64}[\w-]{22}$/);
    expect(url.pathname).not.toContain(claimId);
    // Only the random half is stored: the link itself is nowhere in the database.
    const token = url.pathname.split('/').pop()!;
    const row = await server.db
      .selectFrom('claims')
      .select('linkId')
      .where('id', '=', claimId)
      .executeTakeFirstOrThrow();
    expect(token.startsWith(row.linkId)).toBe(true);
    expect(token.length).toBeGreaterThan(row.linkId.length);

    const page = await server.request(url.pathname);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(`Your claim with ${s.owner.store.name}`);
    expect(html).toContain('#1001');
    expect(html).not.toContain(claimId);

    const altered = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
    const forged = randomBytes(32).toString('hex') + randomBytes(16).toString('base64url').slice(0, 22);
    for (const path of [
      `/claims/view/${altered}`,
      `/claims/view/${forged}`,
      '/claims/view/abc',
      `/claims/view/${claimId}`,
    ]) {
      const res = await server.request(path);
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(await res.text()).toContain('Claim not found');
      const post = await server.request(`${path}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'message=hi',
      });
      expect(post.status, path).toBe(404);
    }
    expect((await server.request(url.pathname, { method: 'PUT' })).status).toBe(405);
  });

  it('refuses an empty or over-long message, and one without the CSRF token, writing nothing (D41)', async () => {
    const s = await claimStore(server, 'pages-refusals');
    await s.putOrder('o-1');
    const claimId = await s.fileId('o-1');
    const { viewClaimUrl } = answered(await s.api.claims.get({ params: { claimId } }), 200);
    const path = new URL(viewClaimUrl).pathname;
    const b = browser(server);
    const csrf = field(await (await b.fetch(path)).text(), 'csrf')!;
    expect((await b.fetch(`${path}/messages`, { form: { csrf, message: '   ' } })).status).toBe(400);
    const long = await b.fetch(`${path}/messages`, { form: { csrf, message: 'x'.repeat(5001) } });
    expect(long.status).toBe(400);
    expect(await long.text()).toContain('at most 5000 characters');
    expect((await b.fetch(`${path}/messages`, { form: { csrf: 'forged', message: 'hello' } })).status).toBe(403);
    expect((await browser(server).fetch(`${path}/messages`, { form: { csrf, message: 'hello' } })).status).toBe(403);
    const messages = await server.db.selectFrom('claimMessages').select('id').where('claimId', '=', claimId).execute();
    expect(messages).toEqual([]);
    const ok = await b.fetch(`${path}/messages`, { form: { csrf, message: 'x'.repeat(5000) } });
    expect(ok.status).toBe(303);
    expect(ok.headers.get('location')).toBe(`${path}#messages-title`);
  });

  it('limits the form to 10 messages a minute per link, on the page (D41)', async () => {
    const s = await claimStore(server, 'pages-limit');
    await s.putOrder('o-1');
    const claimId = await s.fileId('o-1');
    const { viewClaimUrl } = answered(await s.api.claims.get({ params: { claimId } }), 200);
    const path = new URL(viewClaimUrl).pathname;
    const b = browser(server);
    const csrf = field(await (await b.fetch(path)).text(), 'csrf')!;
    // The limit counts per clock minute (D4): the 11 posts all fall in one.
    await withinOneRateWindow();
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++)
      statuses.push((await b.fetch(`${path}/messages`, { form: { csrf, message: `m${i}` } })).status);
    expect(statuses).toEqual([...Array(10).fill(303), 429]);
    const messages = await server.db.selectFrom('claimMessages').select('id').where('claimId', '=', claimId).execute();
    expect(messages).toHaveLength(10);
  });

  it('takes "Add photos" only while the claim is open: a decided claim answers 409 in words, storing nothing (D56)', async () => {
    const s = await claimStore(server, 'pages-closed-photos');
    await s.putOrder('o-1');
    const claimId = await s.fileId('o-1');
    const { viewClaimUrl } = answered(await s.api.claims.get({ params: { claimId } }), 200);
    const path = new URL(viewClaimUrl).pathname;
    const b = browser(server);
    const open = await (await b.fetch(path)).text();
    expect(open).toContain('id="photos-title"');
    const csrf = field(open, 'csrf')!;
    await server.db.updateTable('claims').set({ claimState: 'DENIED' }).where('id', '=', claimId).execute();
    expect(await (await b.fetch(path)).text()).not.toContain('name="photos"');
    const body = new FormData();
    body.set('csrf', csrf);
    body.set('photos', new Blob([(await gpsJpeg()) as Uint8Array<ArrayBuffer>], { type: 'image/jpeg' }), 'late.jpg');
    const late = await b.fetch(`${path}/photos`, { method: 'POST', body });
    expect(late.status).toBe(409);
    expect(await late.text()).toContain('This claim is closed: no photos can be added.');
    const storeId = s.owner.store.id;
    expect(await server.db.selectFrom('files').select('id').where('storeId', '=', storeId).execute()).toEqual([]);
    expect(await server.db.selectFrom('claimMessages').select('id').where('claimId', '=', claimId).execute()).toEqual(
      [],
    );
  });

  it('gives claims filed before the links existed a link of their own (migration)', async () => {
    const s = await claimStore(server, 'pages-migration');
    await s.putOrder('o-1');
    await s.putOrder('o-2');
    const ids = [await s.fileId('o-1'), await s.fileId('o-2')];
    const migration = migrations['20261124010000-claim-links']!;
    // Back to the schema before links, then forward: the rows that exist get their links.
    await migration.down!(server.db);
    await migration.up(server.db);
    const rows = await server.db.selectFrom('claims').select(['id', 'linkId']).where('id', 'in', ids).execute();
    expect(rows).toHaveLength(2);
    expect(new Set(rows.map((r) => r.linkId)).size).toBe(2);
    for (const id of ids) {
      const { viewClaimUrl } = answered(await s.api.claims.get({ params: { claimId: id } }), 200);
      expect((await server.request(new URL(viewClaimUrl).pathname)).status).toBe(200);
    }
  });

  it('logs and counts a claim page by its template, never its link', async () => {
    const figures = await server.metrics.registry.metrics();
    expect(figures).toMatch(/http_requests_total\{[^}]*route="\/claims\/view\/:token"[^}]*\} \d+/);
    expect(figures).toMatch(/route="\/v1\/oauth\/authorize\/sign-in"/);
    expect(figures).toMatch(/rate_limit_refusals_total\{limit="claimMessages"\} 1/);
    expect(figures).not.toMatch(/\/claims\/view\/[0-9a-f]{64}/);
    expect(lines).toContain('"path":"/claims/view/:token"');
    expect(lines).not.toMatch(/\/claims\/view\/[0-9a-f]{64}/);
    expect(lines).not.toMatch(/code_challenge|st-1/);
  });

  it('the invitation page (D53): the page headers, a CSRF-bound form, the sign-in count, and 404 for a forged link', async () => {
    const team = await createOwner(server.db, `pages-team-${randomBytes(3).toString('hex')}`);
    const dash = await dashboardTokenFor(server, team.user.id);
    const email = `pages-invitee-${randomBytes(3).toString('hex')}@example.com`;
    answered(
      await server.api(dash).members.invite({ params: { storeId: team.store.id }, body: { email, role: 'agent' } }),
      201,
    );
    const { linkId } = await server.db
      .selectFrom('memberInvitations')
      .select('linkId')
      .where('email', '=', email)
      .executeTakeFirstOrThrow();
    const links = invitationLinks(server.config.secretKey, server.config.publicBaseUrl);
    const path = new URL(invitationUrl(links, linkId)).pathname;
    const b = browser(server);
    const page = await b.fetch(path);
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    const csrf = field(await page.text(), 'csrf')!;
    const joinForm = { name: 'Pat', password: 'a long enough password' };
    // Another session's token, or none: refused, and nobody joined.
    expect((await b.fetch(path, { form: joinForm })).status).toBe(403);
    expect((await browser(server).fetch(path, { form: { ...joinForm, csrf } })).status).toBe(403);
    // A forged MAC on the same random half: the 404 page.
    expect((await b.fetch(`${path.slice(0, -4)}AAAA`)).status).toBe(404);
    // Each post counts on the sign-in's per-address limit (D4): short passwords until 429, in one clock minute.
    await withinOneRateWindow();
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++)
      statuses.push((await b.fetch(path, { form: { csrf, name: 'Pat', password: 'x' } })).status);
    expect(statuses).toContain(429);
    expect(statuses.filter((status) => status !== 429).every((status) => status === 400)).toBe(true);
    const joined = await server.db.selectFrom('dashboardUsers').select('id').where('email', '=', email).execute();
    expect(joined).toEqual([]);
  });
});
