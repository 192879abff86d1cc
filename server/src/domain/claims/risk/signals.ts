import { DEFAULT_PHOTOS_REQUIRED_FOR } from '@protection-service/contract';
import { type RawBuilder, sql } from 'kysely';
import { MATCH_BITS } from '../../files/photo-matches';

/**
 * D57: a claim's risk, from its store's own data and nothing else: every signal is computed by
 * one PostgreSQL function, `claim_risk` (migrations/20261201800000-claim-risk-function.ts), from
 * the facts of the claim its caller gives, with the thresholds and lists below (`RULES`). It
 * runs in the claim's own statement when it is filed on a live order (`filingRisk`: the
 * claim is inserted with its risk and claimed value, `claim/created` written with its risk),
 * and in `riskStatement` over a written claim (the sweep, an offline filing), which writes the
 * signals with the level and the claimed value and takes the claim off `claim_risk_pending`.
 * Both queue the related claims whose own signals may now see this one. Every read is bounded
 * by the claim's store: a claim of another store is never read, whatever it shares with this
 * one.
 */
export const RISK = {
  /** repeat_claimer: the same e-mail or shipping address on this many other claims... */
  repeatOthers: 2,
  /** ...filed within this many days of this one (before or after). */
  repeatDays: 180,
  /** photo_reused: perceptual hashes at most this many bits apart (matched as a photo is stored). */
  photoBits: MATCH_BITS,
  /** amount_outlier: claimed value over this many times the store's median claim... */
  outlierFactor: 3,
  /** ...of the claims filed in this many days before this one... */
  outlierDays: 90,
  /**
   * ...when there are at least this many of them; the median is of the latest this many at most
   * (a store's typical claim is well known from 200: a filing reads about half of them).
   */
  outlierMinClaims: 5,
  outlierAtMost: 200,
  /** A signal names at most this many related claims (the nearest); its detail counts them all... */
  relatedAtMost: 20,
  /** ...up to this many by e-mail and as many by address: a filing's reads stay bounded however often a shopper claimed. */
  repeatCountedAtMost: 100,
} as const;

/** Issue types a delivered package contradicts (carrier_delivered). */
const NOT_RECEIVED_TYPES = ['MISSING_ITEM', 'ORDER_DELIVERED_NOT_RECEIVED'];
/** Issue types that need the package in hand (filed_before_delivery). */
const IN_HAND_TYPES = ['DAMAGED', 'DEFECTIVE_ITEM', 'WRONG_ITEM'];
/** The statuses of a package still on its way (filed_before_delivery). */
const ON_THE_WAY = ['pre_transit', 'in_transit', 'out_for_delivery', 'available_for_pickup'];

/** A list as PostgreSQL's array text (its items plain words). */
const arrayText = (items: readonly string[]) => `{${items.join(',')}}`;

/** `claim_risk`'s first argument: RISK and the lists above, as it reads them. */
const RULES = JSON.stringify({
  ...RISK,
  notReceived: arrayText(NOT_RECEIVED_TYPES),
  inHand: arrayText(IN_HAND_TYPES),
  onTheWay: arrayText(ON_THE_WAY),
  photosRequiredByDefault: arrayText(DEFAULT_PHOTOS_REQUIRED_FOR),
});
/**
 * RULES in the statement's text, not a value bound at each run: a constant of a prepared
 * statement is read into jsonb once, when the statement is planned, where a bound value was
 * parsed again at every call. Its own text: numbers and plain words, quoted as SQL quotes.
 */
const RULES_SQL = sql.raw(`'${RULES.replaceAll("'", "''")}'::jsonb`);

/**
 * The call of `claim_risk` on the facts of a claim, in the order of its arguments after the
 * rules: its store, id, order, filing time, e-mail (lower case) and shipping address; its items
 * (their issue types, distinct and in order; their quantities and order lines, item by item;
 * their fulfillments; whether any has an image); the service's files attached to it; whether a
 * message of it has a media; and whether it is being filed.
 */
function claimRisk(facts: {
  storeId: RawBuilder<unknown> | string;
  claimId: RawBuilder<unknown> | string;
  orderId: RawBuilder<unknown>;
  filedAt: RawBuilder<unknown>;
  email: RawBuilder<unknown>;
  address: RawBuilder<unknown>;
  lines: { issueTypes: unknown; quantities: unknown; itemIds: unknown; fulfillmentIds: unknown; withImages: unknown };
  fileIds: unknown;
  withMedias: RawBuilder<unknown> | boolean;
  filing: boolean;
}): RawBuilder<unknown> {
  const l = facts.lines;
  return sql`claim_risk(${RULES_SQL}, ${facts.storeId}::text, ${facts.claimId}::text, ${facts.orderId}, ${facts.filedAt},
    ${facts.email}, ${facts.address}, ${l.issueTypes}::text[], ${l.quantities}::int[], ${l.itemIds}::text[],
    ${l.fulfillmentIds}::text[], ${l.withImages}::boolean, ${facts.fileIds}::text[], ${facts.withMedias}::boolean, ${facts.filing})`;
}

/** A claim being filed on a live order: what its statement is about to write. */
export interface Filing {
  id: string;
  storeId: string;
  email: string;
  lines: {
    itemId: string | null;
    quantity: number;
    issueType: string | null;
    sourceFulfillmentId: string | null;
    images: string[];
  }[];
  /** The service's files its images name, attached to it in the same transaction (D56). */
  fileIds: readonly string[];
}

/**
 * The risk of a claim its statement is filing on a live order, as a call for that statement's
 * `from` (joined to its `source`, one row or none): `level`, `signals`, the claimed `amount`
 * and its `currency`, which the claim's insert writes with it and `claim/created` carries; the
 * related claims are queued. The same function as `riskStatement`'s, on what is being written
 * instead of a row: no update of the claim after its insert, no rewrite of the event. The
 * filing time is the transaction's `now()`, the column's default; a claim filed on a live order
 * carries no shipping address (D23) and no message yet.
 */
export function filingRisk(f: Filing): RawBuilder<unknown> {
  const col = <T>(g: (l: Filing['lines'][number]) => T) => f.lines.map(g);
  return claimRisk({
    storeId: f.storeId,
    claimId: f.id,
    orderId: sql`s.order_id`,
    filedAt: sql`now()`,
    email: sql`lower(${f.email}::text)`,
    address: sql`null::text`,
    lines: {
      issueTypes: [...new Set(f.lines.flatMap((l) => (l.issueType ? [l.issueType] : [])))].sort(),
      quantities: col((l) => l.quantity),
      itemIds: col((l) => l.itemId),
      fulfillmentIds: col((l) => l.sourceFulfillmentId),
      withImages: f.lines.some((l) => l.images.length > 0),
    },
    fileIds: [...f.fileIds],
    withMedias: false,
    filing: true,
  });
}

/**
 * The text of `risk` in a `claim/created` body (D57), from the written claim `row` (a CTE or
 * alias with its `risk_level` and `risk_signals`): what the filing writes and the sweep writes
 * over the event's `low`.
 */
export const riskBodyText = (row: string): RawBuilder<string> =>
  sql`jsonb_build_object('level', ${sql.raw(row)}.risk_level, 'signals', ${sql.raw(row)}.risk_signals)::text`;

/** Takes a claim off the sweep's list: one filed with its photos, which their attaching queued though its risk saw them. */
export function settledStatement(claimId: string) {
  return sql`delete from claim_risk_pending where claim_id = ${claimId}`;
}

/** What to do beyond writing the claim's risk: at filing, the event's body and the claims of the same shopper. */
export interface RiskWrite {
  /** The `claim/created` event whose body's `risk` is set (at filing). */
  eventId?: string;
  /** Queue the claims of the same shopper too, whose repeat_claimer now counts this one (at filing). */
  filing?: boolean;
}

/**
 * The one statement that computes and writes a claim's risk (D57) from its rows, answering it
 * as `{riskLevel, riskSignals}` (no row when the claim does not exist).
 */
export function riskStatement(claimId: string, write: RiskWrite = {}) {
  const risk = claimRisk({
    storeId: sql`c.store_id`,
    claimId: sql`c.id`,
    orderId: sql`c.order_id`,
    filedAt: sql`c.created_at`,
    email: sql`lower(c.author_email)`,
    address: sql`c.shipping_address_key`,
    lines: {
      issueTypes: sql`l.issue_types`,
      quantities: sql`l.quantities`,
      itemIds: sql`l.item_ids`,
      fulfillmentIds: sql`l.fulfillment_ids`,
      withImages: sql`l.with_images`,
    },
    fileIds: sql`array(select f.id from files f where f.claim_id = c.id)`,
    withMedias: sql`exists (select 1 from claim_messages m where m.claim_id = c.id and jsonb_array_length(m.medias) > 0)`,
    filing: write.filing ?? false,
  });
  return sql<{ riskLevel: 'low' | 'medium' | 'high'; riskSignals: unknown[] }>`
    with risk_now as (
      select c.id, r.level, r.signals, r.amount, r.currency
      from claims c
      -- Its items, read once: item by item in their order, the issue types distinct and in order.
      cross join lateral (
        select coalesce(array_agg(distinct i.issue_type order by i.issue_type) filter (where i.issue_type is not null), '{}') as issue_types,
          coalesce(array_agg(i.quantity order by i.position), '{}') as quantities,
          coalesce(array_agg(i.item_id order by i.position), '{}') as item_ids,
          coalesce(array_agg(i.source_fulfillment_id order by i.position), '{}') as fulfillment_ids,
          coalesce(bool_or(jsonb_array_length(i.images) > 0), false) as with_images
        from claim_items i where i.claim_id = c.id
      ) l
      cross join lateral ${risk} r
      where c.id = ${claimId}
    ), written as (
      update claims set risk_level = r.level, risk_signals = r.signals, claimed_value = r.amount, claimed_currency = r.currency
      from risk_now r
      where claims.id = r.id
      returning claims.risk_level, claims.risk_signals
    ), taken as (
      -- Off the queue only at the count of changes this statement's snapshot read: a change
      -- committed since (while the claim's row was waited on) has counted one more, and the
      -- row stays for the next sweep.
      delete from claim_risk_pending p where p.claim_id = ${claimId}
        and p.changes = (select q.changes from claim_risk_pending q where q.claim_id = ${claimId})
    )${
      write.eventId
        ? sql`, event as (
      update webhook_events e
      set body = regexp_replace(e.body::text, '"risk":\\{"level":"low","signals":\\[\\]\\}\\}$',
        '"risk":' || replace(${riskBodyText('w')}, '\\', '\\\\') || '}')::json
      from written w where e.id = ${write.eventId}
    )`
        : sql``
    }
    select risk_level, risk_signals from written
  `;
}
