import { type RawBuilder, sql } from 'kysely';
import { CursorCodec, type Position } from './cursor';
import { refuse } from './refusal';

/**
 * The one keyset pager (D24) of every cursor list: it reads the paging query, checks its signed
 * cursors (cursor.ts) against the list's binding, asks the list for one range of rows and
 * answers the connection. A list names its keyset columns once (`keyset`), says what binds its
 * cursors (the list, the owner, every filter), and hands `page` its rows and nodes:
 *
 *   const CLAIMS = keyset('c.created_at', 'c.id');   // and `${CLAIMS.position} as keyset_at` in the select
 *   return pager.page(q, binding, {
 *     rows: (range) => select … where [...filters, ...CLAIMS.bounds(range)] joined by `and`, CLAIMS.order(range),
 *     position: (row) => ({ createdAt: row.keysetAt, id: row.id }),
 *     nodes: (rows) => rows.map(view),
 *   });
 *
 * A page holds the rows strictly between `after` and `before` (either, both or neither): the
 * first `first` of them, or with `last` the last `last` (default 50); `first` and `last`
 * together are refused. Never OFFSET: a page is one range scan of an index ending in the
 * keyset columns, so it costs the same at any depth. A list in descending order (newest
 * first, D51) says so with `descending`: `after` then means older, and the index is read
 * backwards.
 */

/** The paging part of a list's query (the contract's `ZPageQuery`). */
interface PageQuery {
  first?: number;
  after?: string;
  last?: number;
  before?: string;
}

/**
 * What one page reads: at most `limit` rows strictly between the bounds, in the list's order
 * (`descending` or not), read from the far end when `backward`.
 */
export interface PageRange {
  after?: Position;
  before?: Position;
  limit: number;
  backward: boolean;
  descending: boolean;
}

interface Connection<Node> {
  edges: { node: Node; cursor: string }[];
  pageInfo: { startCursor: string | null; endCursor: string | null; hasNextPage: boolean; hasPreviousPage: boolean };
}

/** A page's size when the query names none. */
const DEFAULT_PAGE_SIZE = 50;

/** The time of a position as a cursor keeps it (UTC, microseconds), from a timestamptz column. */
export const positionTime = (column: string) =>
  sql<string>`to_char(${sql.raw(column)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/**
 * A list's keyset in SQL: its `(created_at, id)` columns, named as the list's query names them
 * (code, never input). `position` selects the time a cursor keeps; `bounds` and `order` place a
 * range in the query.
 */
export function keyset(createdAt: string, id: string) {
  const columns = sql.raw(`(${createdAt}, ${id})`);
  const at = (p: Position) => sql`(${p.createdAt}::timestamptz, ${p.id})`;
  return {
    position: positionTime(createdAt),
    /** The range's bounds as conditions (none without a cursor), to join with the list's own. */
    bounds(range: PageRange): RawBuilder<unknown>[] {
      const [later, earlier] = range.descending ? [sql`<`, sql`>`] : [sql`>`, sql`<`];
      const bounds = [];
      if (range.after) bounds.push(sql`${columns} ${later} ${at(range.after)}`);
      if (range.before) bounds.push(sql`${columns} ${earlier} ${at(range.before)}`);
      return bounds;
    },
    order(range: PageRange): RawBuilder<unknown> {
      const direction = sql.raw(range.backward !== range.descending ? 'desc' : 'asc');
      return sql`order by ${sql.raw(createdAt)} ${direction}, ${sql.raw(id)} ${direction} limit ${range.limit}`;
    },
  };
}

export class KeysetPager {
  readonly #cursors: CursorCodec;

  constructor(secretKey: Buffer) {
    this.#cursors = new CursorCodec(secretKey);
  }

  /**
   * One page of a list. `binding` is what its cursors are bound to; a cursor that does not
   * verify against it is refused (400). `rows` reads the range, `position` is a row's keyset
   * position, `nodes` the page's rows as the list answers them (in their order).
   */
  async page<Row, Node>(
    query: PageQuery,
    binding: string,
    list: {
      rows: (range: PageRange) => Promise<Row[]>;
      position: (row: Row) => Position;
      nodes: (rows: Row[]) => Node[] | Promise<Node[]>;
      /** Newest first (D51); bind the order into `binding` too, so a cursor stays in its order. */
      descending?: boolean;
    },
  ): Promise<Connection<Node>> {
    if (query.first !== undefined && query.last !== undefined)
      throw refuse.invalid('invalid request: first and last cannot be combined');
    const after = this.#position(query, 'after', binding);
    const before = this.#position(query, 'before', binding);
    const backward = query.last !== undefined;
    const size = query.last ?? query.first ?? DEFAULT_PAGE_SIZE;
    const rows = await list.rows({ after, before, limit: size + 1, backward, descending: list.descending === true });
    const more = rows.length > size;
    const page = rows.slice(0, size);
    if (backward) page.reverse();
    const nodes = await list.nodes(page);
    const edges = page.map((row, i) => ({
      node: nodes[i]!,
      cursor: this.#cursors.encode(list.position(row), binding),
    }));
    return {
      edges,
      pageInfo: {
        startCursor: edges[0]?.cursor ?? null,
        endCursor: edges.at(-1)?.cursor ?? null,
        hasNextPage: backward ? before !== undefined : more,
        hasPreviousPage: backward ? more : after !== undefined,
      },
    };
  }

  #position(query: PageQuery, side: 'after' | 'before', binding: string): Position | undefined {
    const cursor = query[side];
    if (cursor === undefined) return undefined;
    const position = this.#cursors.decode(cursor, binding);
    if (!position) throw refuse.invalid(`invalid request: ${side}: not a cursor of this list`);
    return position;
  }
}
