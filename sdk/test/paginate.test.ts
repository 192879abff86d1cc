import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import {
  createClient,
  type ListItem,
  ProtectionApiError,
  paginate,
  type TAppEvent,
  type TClaimListNode,
} from '../src/index';

/**
 * paginate() against a small local server that answers D24 connections: claims bare
 * (`GET /v1/claims`), app events in the D1 envelope (`GET /v1/apps/:clientId/events`, D34).
 * It pages by `after`, so the test sees exactly which cursors the SDK followed.
 */
describe('paginate', () => {
  const ITEMS = Array.from({ length: 7 }, (_, i) => ({ id: `item-${i}` }));
  let server: Server;
  let baseUrl: string;
  const requests: URL[] = [];

  /** Pages of `first` items (3 by default), cursors are the item ids. */
  function page(url: URL) {
    const first = Number(url.searchParams.get('first') ?? '3');
    const after = url.searchParams.get('after');
    const start = after === null ? 0 : ITEMS.findIndex((i) => i.id === after) + 1;
    const slice = ITEMS.slice(start, start + first);
    return {
      edges: slice.map((node) => ({ node, cursor: node.id })),
      pageInfo: {
        startCursor: slice[0]?.id ?? null,
        endCursor: slice.at(-1)?.id ?? null,
        hasNextPage: start + first < ITEMS.length,
        hasPreviousPage: start > 0,
      },
    };
  }

  beforeAll(async () => {
    server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      requests.push(url);
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (url.searchParams.get('after') === 'item-4' && url.searchParams.get('claimState') === 'DENIED') {
        return send(429, { statusCode: 429, message: 'slow down', error: 'Too Many Requests' });
      }
      if (url.pathname === '/v1/claims') return send(200, page(url));
      if (url.pathname === '/v1/apps/svc_app_1/events') return send(200, { data: page(url) });
      send(404, { statusCode: 404, message: 'no', error: 'Not Found' });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const client = () => createClient({ baseUrl, retry: false });

  it('follows pageInfo.endCursor through every page, keeping the query (D24)', async () => {
    requests.length = 0;
    const ids: string[] = [];
    for await (const claim of paginate(client().claims.list, { query: { first: 3, claimState: 'NEW' } })) {
      expectTypeOf(claim).toEqualTypeOf<TClaimListNode>();
      ids.push(claim.id);
    }
    expect(ids).toEqual(ITEMS.map((i) => i.id));
    expect(requests.map((u) => u.search)).toEqual([
      '?first=3&claimState=NEW',
      '?first=3&claimState=NEW&after=item-2',
      '?first=3&claimState=NEW&after=item-5',
    ]);
  });

  it('pages the app event log inside its D1 envelope (D34), from a given cursor', async () => {
    requests.length = 0;
    const events = paginate(client().apps.listEvents, {
      params: { clientId: 'svc_app_1' },
      query: { first: 4, after: 'item-0', status: 'failed' },
    });
    const ids: string[] = [];
    for await (const event of events) {
      expectTypeOf(event).toEqualTypeOf<TAppEvent>();
      ids.push(event.id);
    }
    expect(ids).toEqual(ITEMS.slice(1).map((i) => i.id));
    expect(requests.map((u) => u.searchParams.get('after'))).toEqual(['item-0', 'item-4']);
    expectTypeOf<ListItem<ReturnType<typeof client>['apps']['listEvents']>>().toEqualTypeOf<TAppEvent>();
  });

  it('fetches pages only as the loop asks for them', async () => {
    requests.length = 0;
    for await (const claim of paginate(client().claims.list)) {
      expect(claim.id).toBe('item-0');
      break;
    }
    expect(requests).toHaveLength(1);
  });

  it('throws ProtectionApiError when a page fails, after the items it had', async () => {
    const ids: string[] = [];
    const error = await (async () => {
      for await (const claim of paginate(client().claims.list, { query: { claimState: 'DENIED', first: 5 } })) {
        ids.push(claim.id);
      }
    })().catch((e: unknown) => e);
    expect(ids).toEqual(ITEMS.slice(0, 5).map((i) => i.id));
    expect(error).toBeInstanceOf(ProtectionApiError);
    expect(error).toMatchObject({ status: 429 });
  });

  it('refuses backward paging', () => {
    expect(() => paginate(client().claims.list, { query: { last: 5 } })).toThrow(TypeError);
  });
});
