import { parse } from 'csv-parse/sync';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLAIM_EXPORT_COLUMNS } from '../../../contract/src/index';
import type { TClaimListQuery } from '../../../sdk/src/index';
import { type ClaimStore, claimBody, claimStore } from '../harness/claims';
import { addMember, pageSession } from '../harness/dashboard';
import { answered, errorOf } from '../harness/fixtures';
import { startTestServer, type TestServer } from '../harness/server';

/**
 * `GET /v1/claims/export` (D52): the list's claims and filters as RFC 4180 CSV, read back by a
 * real CSV parser; formulas neutralised; another store's claims absent; over the limit 422
 * before anything is sent; the export itself audited (D53).
 */
describe('claims export (D52)', () => {
  let server: TestServer;
  let s: ClaimStore;
  let other: ClaimStore;

  beforeAll(async () => {
    server = await startTestServer({}, { rateLimits: { token: 1e9 } });
    s = await claimStore(server, 'export');
    other = await claimStore(server, 'export-other');
    // Shopper-supplied names are hostile (they come from the order's customer): set as such.
    const named = async (store: ClaimStore, sourceOrderId: string, name: string, email: string, number = '#2000') => {
      await store.putOrder(sourceOrderId, { sourceOrderNumber: number });
      const claimId = await store.fileId(sourceOrderId, claimBody({ email }));
      await sql`update claims set author_name = ${name} where id = ${claimId}`.execute(server.db);
      return claimId;
    };
    await named(s, 'exp-1', '=HYPERLINK("http://x")', 'a@example.com');
    const approved = await named(s, 'exp-2', 'Line\r\nBreak', 'b@example.com', '+2002, "quoted"');
    answered(
      await s.api.claims.approve({
        params: { claimId: approved },
        body: { resolutions: [{ type: 'REFUND', paidValue: 12.5 }] },
      }),
      200,
    );
    await named(s, 'exp-3', '@sum', 'c@example.com');
    await named(other, 'exp-other', 'Other Store Shopper', 'o@example.com');
  });
  afterAll(async () => {
    await server.close();
  });

  const exportRaw = (query = '', store = s) =>
    server.request(`/v1/claims/export${query}`, { headers: { authorization: `Bearer ${store.token}` } });
  const rowsOf = async (res: Response) =>
    parse(await res.text(), { columns: true, relax_quotes: false, record_delimiter: '\r\n' }) as Record<
      string,
      string
    >[];
  const listed = async (query: TClaimListQuery = {}) =>
    answered(await s.api.claims.list({ query: { first: 250, ...query } }), 200).edges.map((e) => e.node);

  it("names a tracking claim type as the caller's version does: blank before 2027-01-15 (D54)", async () => {
    await s.putOrder('exp-lost', {});
    const claimId = await s.fileId('exp-lost', claimBody({ email: 'lost@example.com' }));
    await sql`update claims set claim_type = 'LOST_IN_TRANSIT' where id = ${claimId}`.execute(server.db);
    const typeIn = async (version: string) => {
      const res = await server.request(`/v1/claims/export?q=${claimId}`, {
        headers: { authorization: `Bearer ${s.token}`, 'api-version': version },
      });
      expect(res.headers.get('api-version')).toBe(version);
      return (await rowsOf(res)).map((r) => r.claimType);
    };
    expect(await typeIn('2027-01-15')).toEqual(['LOST_IN_TRANSIT']);
    expect(await typeIn('2026-12-01')).toEqual(['']);
    expect(await typeIn('2025-01-01')).toEqual(['']);
  });

  it('refuses a tracking claim type as a filter of the list and the export before 2027-01-15, with 400 (D54)', async () => {
    const filtered = (path: string, version: string, claimType: string) =>
      server.request(`${path}?claimType=${claimType}`, {
        headers: { authorization: `Bearer ${s.token}`, 'api-version': version },
      });
    for (const path of ['/v1/claims', '/v1/claims/export']) {
      for (const claimType of ['LOST_IN_TRANSIT', 'DELAYED']) {
        for (const version of ['2026-12-01', '2025-01-01']) {
          const res = await filtered(path, version, claimType);
          expect(res.status, `${version} ${path} ${claimType}`).toBe(400);
          expect((await errorOf(res)).issues?.[0]?.path).toBe('query.claimType');
        }
        expect((await filtered(path, '2027-01-15', claimType)).status).toBe(200);
      }
      // A type every version has is a filter in each of them.
      expect((await filtered(path, '2026-12-01', 'MULTIPLE')).status).toBe(200);
    }
  });

  it('answers RFC 4180 CSV with a header row, as an attachment, equal to the list', async () => {
    const res = await exportRaw();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="claims-\d{4}-\d{2}-\d{2}\.csv"$/);
    const text = await res.clone().text();
    expect(text.split('\r\n')[0]).toBe(CLAIM_EXPORT_COLUMNS.join(','));
    expect(text.endsWith('\r\n')).toBe(true);
    const rows = await rowsOf(res);
    const claims = await listed();
    expect(rows.map((r) => r.claimId)).toEqual(claims.map((c) => c.id));
    for (const [i, c] of claims.entries()) {
      const row = rows[i]!;
      expect(row.createdAt).toBe(c.createdAt);
      expect(row.claimState).toBe(c.claimState);
      expect(row.sourceOrderId).toBe(c.sourceOrderId);
      expect(row.authorEmail).toBe(c.authorEmail ?? '');
      expect(row.items).toContain(`${c.claimItems[0]!.quantity} x `);
      const name = c.authorName ?? '';
      expect(row.authorName).toBe(/^[=+\-@\t\r]/.test(name) ? `'${name}` : name);
      const number = c.sourceOrderNumber;
      expect(row.sourceOrderNumber).toBe(/^[=+\-@\t\r]/.test(number) ? `'${number}` : number);
    }
    const refunded = rows.find((r) => r.resolution === 'REFUND')!;
    expect([refunded.amount, refunded.currency, refunded.claimState]).toEqual(['12.5', 'USD', 'APPROVED']);
    expect(rows.find((r) => r.authorEmail === 'b@example.com')!.authorName).toBe('Line\r\nBreak');
  });

  it('writes a formula as inert text', async () => {
    const rows = await rowsOf(await exportRaw());
    const names = rows.map((r) => r.authorName);
    expect(names).toContain(`'=HYPERLINK("http://x")`);
    expect(names).toContain(`'@sum`);
    expect(rows.map((r) => r.sourceOrderNumber)).toContain(`'+2002, "quoted"`);
  });

  it("applies the list's filters, and holds no other store's claims", async () => {
    const approved = await rowsOf(await exportRaw('?queue=approved'));
    expect(approved.map((r) => r.claimId)).toEqual((await listed({ queue: 'approved' })).map((c) => c.id));
    expect(approved).toHaveLength(1);
    const byEmail = await rowsOf(await exportRaw('?q=c%40example.com'));
    expect(byEmail.map((r) => r.authorEmail)).toEqual(['c@example.com']);
    const newest = await rowsOf(await exportRaw('?order=desc'));
    expect(newest.map((r) => r.claimId)).toEqual((await listed({ order: 'desc' })).map((c) => c.id));
    const all = await rowsOf(await exportRaw());
    expect(all.map((r) => r.authorName)).not.toContain('Other Store Shopper');
    const theirs = await rowsOf(await exportRaw('', other));
    expect(theirs.map((r) => r.authorName)).toEqual(['Other Store Shopper']);
    // The list's refusals are the export's (D51): 400 in the D2 shape.
    const bad = await exportRaw('?queue=approved&claimState=NEW');
    expect(bad.status).toBe(400);
    expect((await errorOf(bad)).statusCode).toBe(400);
  });

  it('is a claims.exported line in the audit log, with the filters and the count (D53)', async () => {
    await rowsOf(await exportRaw('?queue=approved'));
    const line = await server.db
      .selectFrom('auditEvents')
      .selectAll()
      .where('storeId', '=', s.owner.store.id)
      .where('action', '=', 'claims.exported')
      .orderBy('at', 'desc')
      .executeTakeFirstOrThrow();
    expect(line).toMatchObject({
      actorType: 'app',
      actorId: s.clientId,
      changes: { filters: { queue: 'approved' }, rows: 1 },
    });
  });

  it('can be had through the SDK as text', async () => {
    const res = await s.api.claims.export({ query: { queue: 'approved' } });
    expect(res.status).toBe(200);
    if (res.status !== 200) return;
    const rows = parse(res.body, { columns: true }) as Record<string, string>[];
    expect(rows).toHaveLength(1);
  });

  it('refuses more than 100,000 claims with 422 before sending any row', async () => {
    const big = await claimStore(server, 'export-big');
    await big.putOrder('big-1');
    const order = await server.db
      .selectFrom('orders')
      .select(['id', 'sourceOrderId'])
      .where('storeId', '=', big.owner.store.id)
      .executeTakeFirstOrThrow();
    await sql`
      insert into claims (id, store_id, order_id, source_order_id, claim_category, sales_channel)
      select 'clm_big_' || g, ${big.owner.store.id}, ${order.id}, ${order.sourceOrderId}, 'SHIPPING', 'ONLINE'
      from generate_series(1, 100001) g
    `.execute(server.db);
    const res = await exportRaw('', big);
    expect(res.status).toBe(422);
    const err = await errorOf(res);
    expect(err.message).toContain('100000');
    const narrowed = await exportRaw('?q=clm_big_7', big);
    expect(narrowed.status).toBe(200);
    expect(await rowsOf(narrowed)).toHaveLength(1);
  });

  it("is linked from the dashboard's queue with its filters and streamed through the dashboard", async () => {
    const viewer = await addMember(server, s.owner.store.id, 'viewer');
    const session = await pageSession(server, viewer);
    const queue = await server.request(`/dashboard/stores/${s.owner.store.id}/claims?tab=approved&order=desc`, {
      headers: { cookie: session.cookie },
    });
    const html = await queue.text();
    const link = /<a [^>]*>Export<\/a>/.exec(html)?.[0] ?? html.slice(0, 0);
    const href = /href="([^"]+)"/.exec(link)?.[1]?.replaceAll('&amp;', '&');
    expect(href).toBe(`/dashboard/stores/${s.owner.store.id}/claims/export?tab=approved&order=desc`);
    const res = await server.request(href!, { headers: { cookie: session.cookie } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename=/);
    const rows = await rowsOf(res);
    expect(rows.map((r) => r.claimId)).toEqual((await listed({ queue: 'approved', order: 'desc' })).map((c) => c.id));
    // Another store's export is not found, as the store itself (D7).
    const theirs = await server.request(`/dashboard/stores/${other.owner.store.id}/claims/export`, {
      headers: { cookie: session.cookie },
    });
    expect(theirs.status).toBe(404);
  });
});
