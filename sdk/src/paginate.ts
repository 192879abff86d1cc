import { ProtectionApiError } from './errors';
import type { TPageInfo } from './generated/client';

/** A D24 page: `{ edges: [{ node, cursor }], pageInfo }`, bare or in a D1 `{ data }` envelope. */
interface Connection<N> {
  edges: readonly { node: N; cursor: string }[];
  pageInfo: TPageInfo;
}

/**
 * A list operation of the client, such as `client.claims.list` or `client.apps.listEvents`:
 * what {@link paginate} takes.
 *
 * @example
 * const lists: ListOperation[] = [client.claims.list, dashboard.apps.listEvents];
 */
export type ListOperation = (args: any) => Promise<{ status: number; body: unknown; headers: Headers }>;

/**
 * The item type of a list operation: the `node` of its connection.
 *
 * @example
 * type Claim = ListItem<typeof client.claims.list>; // the claim list node
 */
export type ListItem<F extends ListOperation> = ItemOf<Extract<Awaited<ReturnType<F>>, { status: 200 }>['body']>;
type ItemOf<B> = B extends Connection<infer N> ? N : B extends { data: Connection<infer N> } ? N : never;

/**
 * Every item of a cursor-paged list (D24), page after page, following `pageInfo.endCursor`
 * until `hasNextPage` is false. `args` are the list's own (path parameters, filters, `first` as
 * the page size); pages are fetched as the loop asks for them, and a failed page throws
 * {@link ProtectionApiError}. Paging runs forward: `last` and `before` are not accepted.
 *
 * @example
 * for await (const claim of paginate(client.claims.list, { query: { claimState: 'NEW', first: 100 } })) {
 *   console.log(claim.id);
 * }
 * for await (const event of paginate(dashboard.apps.listEvents, { params: { clientId }, query: { status: 'failed' } })) {
 *   console.log(event.topic, event.attempts.length);
 * }
 */
export function paginate<F extends ListOperation>(list: F, ...args: Parameters<F>): AsyncIterable<ListItem<F>> {
  const base = (args[0] ?? {}) as { query?: Record<string, unknown> };
  if (base.query?.last !== undefined || base.query?.before !== undefined) {
    throw new TypeError('paginate: pages run forward; use first and after, not last and before');
  }
  return {
    async *[Symbol.asyncIterator]() {
      let after = base.query?.after as string | undefined;
      for (;;) {
        const res = await list({ ...base, query: { ...base.query, after } });
        if (res.status !== 200) throw new ProtectionApiError(res.status, res.body, res.headers);
        const page = connectionOf(res.body);
        for (const edge of page.edges) yield edge.node as ListItem<F>;
        const next = page.pageInfo.endCursor;
        if (!page.pageInfo.hasNextPage || next === null) return;
        if (next === after) throw new Error('paginate: the server answered the same cursor twice');
        after = next;
      }
    },
  };
}

function connectionOf(body: unknown): Connection<unknown> {
  const b = body as Partial<Connection<unknown>> & { data?: Connection<unknown> };
  const page = Array.isArray(b?.edges) ? b : b?.data;
  if (!page || !Array.isArray(page.edges) || typeof page.pageInfo !== 'object') {
    throw new TypeError('paginate: the answer is not a cursor-paged list');
  }
  return page as Connection<unknown>;
}
