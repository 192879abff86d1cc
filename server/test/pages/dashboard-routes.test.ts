import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DASHBOARD_ROUTES } from '../../src/pages/dashboard/index';
import { type ClaimStore, claimStore } from '../harness/claims';
import { type PageSession, pageSession } from '../harness/dashboard';
import { startTestServer, type TestServer } from '../harness/server';

/**
 * Every route of the dashboard (D50), from its route table, so that a new page is covered
 * without a line here: its headers and no script, sign-in first, another store's ids answering
 * as unknown ones, and every POST refused without the session's CSRF token or from another
 * origin, with nothing changed in the database.
 */
describe('every dashboard route (D50)', () => {
  let server: TestServer;
  let shop: ClaimStore;
  let other: ClaimStore;
  let session: PageSession;
  let ids: Record<string, string>;
  let otherIds: Record<string, string>;

  beforeAll(async () => {
    server = await startTestServer();
    shop = await claimStore(server, 'routes');
    other = await claimStore(server, 'routes-other');
    const seed = async (s: ClaimStore, order: string) => {
      await s.putOrder(order, { sourceOrderNumber: `#${order}` });
      return { storeId: s.owner.store.id, claimId: await s.fileId(order), sourceOrderId: order, clientId: s.clientId };
    };
    ids = await seed(shop, '3100');
    otherIds = await seed(other, '3200');
    session = await pageSession(server, { email: shop.owner.user.email, password: shop.owner.password });
  });
  afterAll(async () => {
    await server?.close();
  });

  /** The route's path with the ids of `values`. */
  const pathOf = (template: string, values: Record<string, string>) =>
    template.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(values[name] ?? `unknown-${name}`));

  /** A digest of everything a dashboard form could change. */
  async function state(): Promise<string> {
    const tables = [
      'claims',
      'claim_items',
      'claim_messages',
      'claim_notes',
      'claim_resolutions',
      'claim_state_changes',
      'claim_store_credits',
      'installations',
      'merchant_settings',
      'tracking_settings',
      'tracking_sources',
      'store_members',
      'webhook_events',
      'mail_messages',
    ];
    const parts: string[] = [];
    for (const table of tables) {
      const rows = await sql<{
        r: string;
      }>`select md5(coalesce(string_agg(t::text, '|' order by t::text), '')) as r from ${sql.table(table)} t`.execute(
        server.db,
      );
      parts.push(`${table}:${rows.rows[0]!.r}`);
    }
    return createHash('sha256').update(parts.join('\n')).digest('hex');
  }

  const pages = DASHBOARD_ROUTES.filter((r) => r.method === 'GET' && r.path !== '/dashboard/sign-in');
  const forms = DASHBOARD_ROUTES.filter((r) => r.method === 'POST' && r.path.includes(':storeId'));

  it('has routes to check', () => {
    expect(pages.length).toBeGreaterThan(2);
    expect(forms.length).toBeGreaterThan(0);
  });

  it('serves each page with the page headers and no script, and only to a signed-in person', async () => {
    for (const route of pages) {
      const path = pathOf(route.path, ids);
      const anonymous = await server.request(path, { redirect: 'manual' });
      expect(anonymous.status, path).toBe(303);
      expect(anonymous.headers.get('location'), path).toMatch(/^\/dashboard\/sign-in/);
      const res = await server.request(path, { headers: { cookie: session.cookie } });
      expect(res.status, path).toBe(200);
      expect(res.headers.get('cache-control'), path).toBe('no-store');
      expect(res.headers.get('x-frame-options'), path).toBe('DENY');
      expect(res.headers.get('referrer-policy'), path).toBe('no-referrer');
      const csp = res.headers.get('content-security-policy')!;
      expect(csp, path).toContain("default-src 'none'");
      expect(csp, path).not.toMatch(/script-src|unsafe-inline/);
      expect(await res.text(), path).not.toMatch(/<script|\son\w+=/i);
    }
  });

  it("answers another store's ids exactly as unknown ones, on every page", async () => {
    for (const route of pages.filter((r) => r.path.includes(':'))) {
      const theirs = await server.request(pathOf(route.path, otherIds), { headers: { cookie: session.cookie } });
      const unknown = await server.request(pathOf(route.path, {}), { headers: { cookie: session.cookie } });
      expect(theirs.status, route.path).toBe(404);
      expect(unknown.status, route.path).toBe(404);
      const body = (res: string) => res.replace(/name="csrf" value="[^"]+"/g, '');
      expect(body(await theirs.text()), route.path).toBe(body(await unknown.text()));
      // This store in the address, another store's claim or order in it.
      if (/:(claimId|sourceOrderId|clientId)/.test(route.path)) {
        const mixed = { ...otherIds, storeId: ids.storeId! };
        const res = await server.request(pathOf(route.path, mixed), { headers: { cookie: session.cookie } });
        expect(res.status, `${route.path} with another store's id`).toBe(404);
      }
    }
  });

  it("refuses every form without the CSRF token, with another session's, or from another origin, changing nothing", async () => {
    const before = await state();
    const theirs = await pageSession(server, { email: other.owner.user.email, password: other.owner.password });
    for (const route of forms) {
      const path = pathOf(route.path, ids);
      const post = (fields: Record<string, string>, headers: Record<string, string>) =>
        server.request(path, {
          method: 'POST',
          redirect: 'manual',
          headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded', ...headers },
          body: new URLSearchParams({ idempotencyKey: crypto.randomUUID(), claimId: ids.claimId!, ...fields }),
        });
      const same = { origin: server.baseUrl };
      expect((await post({}, same)).status, `${path} without a token`).toBe(403);
      expect((await post({ csrf: theirs.csrf }, same)).status, `${path} with another session's token`).toBe(403);
      expect(
        (await post({ csrf: session.csrf }, { origin: 'https://elsewhere.example' })).status,
        `${path} cross-origin`,
      ).toBe(403);
      expect(
        (await post({ csrf: session.csrf }, { 'sec-fetch-site': 'cross-site', ...same })).status,
        `${path} cross-site`,
      ).toBe(403);
      expect((await post({ csrf: session.csrf }, {})).status, `${path} with no origin`).toBe(403);
      // Another store's form, properly sent, is refused as an unknown store's.
      const foreign = await server.request(pathOf(route.path, otherIds), {
        method: 'POST',
        redirect: 'manual',
        headers: {
          cookie: session.cookie,
          origin: server.baseUrl,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ csrf: session.csrf, idempotencyKey: crypto.randomUUID() }),
      });
      expect(foreign.status, `${route.path} on another store`).toBe(404);
    }
    expect(await state()).toBe(before);
  });
});
