import { DEFAULT_PHOTOS_REQUIRED_FOR } from '@protection-service/contract';
import { type RawBuilder, sql } from 'kysely';
import { queueClaimRisk } from '../../../db/risk-queue';
import { MATCH_BITS } from '../../files/photo-matches';

/**
 * D57: a claim's risk, from its store's own data and nothing else: each signal is one part
 * (`signalsOf`), its threshold one constant here, read over the claim's facts. The parts run in
 * the claim's own statement when it is filed on a live order (`filingRiskSteps`: the claim is
 * inserted with its risk and claimed value, `claim/created` written with its risk), and in
 * `riskStatement` over a written claim (the sweep, an offline filing), which writes the signals
 * with the level and the claimed value and takes the claim off `claim_risk_pending`. Both queue
 * the related claims whose own signals may now see this one (`related`). Every read is bounded by the claim's
 * store: a claim of another store is never read, whatever it shares with this one.
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
export const NOT_RECEIVED_TYPES = ['MISSING_ITEM', 'ORDER_DELIVERED_NOT_RECEIVED'];
/** Issue types that need the package in hand (filed_before_delivery). */
export const IN_HAND_TYPES = ['DAMAGED', 'DEFECTIVE_ITEM', 'WRONG_ITEM'];
/** The statuses of a package still on its way (filed_before_delivery). */
export const ON_THE_WAY = ['pre_transit', 'in_transit', 'out_for_delivery', 'available_for_pickup'];

/**
 * What every signal reads of the claim: `subject` (the claim: id, store, order, filing time,
 * e-mail, address, the order's currency), `lines` (its items) and `mine` (its photos, `id`),
 * here of a claim already written.
 */
function writtenFacts(claimId: string): RawBuilder<unknown> {
  return sql`subject as (
      select c.id, c.store_id, c.order_id, c.created_at, lower(c.author_email) as email,
        c.shipping_address_key as address, o.currency
      from claims c join orders o on o.id = c.order_id where c.id = ${claimId}
    ), lines as (
      select i.issue_type, i.quantity, i.item_id, i.source_fulfillment_id, i.images
      from claim_items i where i.claim_id = ${claimId}
    ), mine as (select f.id from files f where f.claim_id = ${claimId})`;
}

/** A claim being filed on a live order: what its statement is about to write, read by the signals as `subject`, `lines`, `mine`. */
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
 * The same facts of a claim its statement is writing, from what it writes (its order from the
 * statement's `source`, one row or none): the signals then go into the claim's own insert. The
 * filing time is the transaction's `now()`, the column's default; a claim filed on a live order
 * carries no shipping address (D23).
 */
function filingFacts(f: Filing, parts: Parts): RawBuilder<unknown> {
  const col = <T>(g: (l: Filing['lines'][number]) => T) => f.lines.map(g);
  return sql`subject as (
      select ${f.id}::text as id, ${f.storeId}::text as store_id, s.order_id, now() as created_at,
        lower(${f.email}::text) as email, null::text as address, o.currency
      from source s join orders o on o.id = s.order_id
    ), lines as (
      select l.issue_type, l.quantity, l.item_id, l.source_fulfillment_id, l.images::jsonb as images
      from unnest(${col((l) => l.issueType)}::text[], ${col((l) => l.quantity)}::int[], ${col((l) => l.itemId)}::text[],
        ${col((l) => l.sourceFulfillmentId)}::text[], ${col((l) => JSON.stringify(l.images))}::text[])
        as l (issue_type, quantity, item_id, source_fulfillment_id, images)
    )${parts.photos ? sql`, mine as (select unnest(${[...f.fileIds]}::text[]) as id)` : sql``}`;
}

/**
 * The parts of the risk a claim's statement holds: every one for a claim already written (its
 * facts are read by the statement), and for a filing only those its own facts leave possible
 * (`filingParts`). A part left out is a signal that cannot hold, so the risk is the same, and
 * a typical filing's statement is smaller: PostgreSQL builds every node of a plan at each run,
 * whether or not its input is empty.
 */
interface Parts {
  /** photo_reused: the claim has photos. */
  photos: boolean;
  /** carrier_delivered: an item is missing or not received. */
  delivered: boolean;
  /** filed_before_delivery: an item needs the package in hand. */
  transit: boolean;
  /** amount_outlier: an item names an order line, so the claim may have a claimed value. */
  outlier: boolean;
  /** missing_photos: an item has an issue type and none has an image. */
  missingPhotos: boolean;
  /** repeat_claimer by shipping address: the claim may carry one (an offline claim, D23). */
  address: boolean;
  /** missing_photos: the claim may have messages with medias (one written before). */
  messages: boolean;
}

const ALL_PARTS: Parts = {
  photos: true,
  delivered: true,
  transit: true,
  outlier: true,
  missingPhotos: true,
  address: true,
  messages: true,
};

/** The parts a filing on a live order needs: from its lines and files; no address (D23), no message yet. */
function filingParts(f: Filing): Parts {
  const types = (among: readonly string[]) => f.lines.some((l) => l.issueType !== null && among.includes(l.issueType));
  return {
    photos: f.fileIds.length > 0,
    delivered: types(NOT_RECEIVED_TYPES),
    transit: types(IN_HAND_TYPES),
    outlier: f.lines.some((l) => l.itemId !== null),
    missingPhotos: f.lines.some((l) => l.issueType !== null) && !f.lines.some((l) => l.images.length > 0),
    address: false,
    messages: false,
  };
}

/** From the facts: the claim's claimed value, and its packages when a part reads them. */
function derivedFacts(parts: Parts): RawBuilder<unknown> {
  const claimed = sql`claimed as (
      select sum(l.quantity * li.price) as amount
      from subject c join lines l on true
      join order_line_items li on li.order_id = c.order_id and li.source_item_id = l.item_id
    )`;
  if (!parts.delivered && !parts.transit) return claimed;
  return sql`${claimed}, packages as (
      -- The packages of the fulfillments the claim names, or of its whole order when it names none.
      select p.id, p.tracking_number, p.carrier, p.status, p.delivered_at, p.delivery_proof
      from subject c join tracking_packages p on p.order_id = c.order_id
      where p.store_id = c.store_id and (
        p.source_fulfillment_id in (select source_fulfillment_id from lines)
        or not exists (select 1 from lines where source_fulfillment_id is not null))
    )`;
}

/**
 * repeat_claimer: the store's other claims of the same e-mail or shipping address, within
 * RISK.repeatDays; by address only where the claim may carry one (`address`).
 */
function repeatClaimer(address: boolean): RawBuilder<unknown> {
  const near = sql`o.store_id = c.store_id and o.id <> c.id and o.deleted_at is null
    and o.created_at between c.created_at - make_interval(days => ${RISK.repeatDays})
      and c.created_at + make_interval(days => ${RISK.repeatDays})`;
  const most = RISK.repeatCountedAtMost;
  // Each side read newest first along its index and stopped at `most`: a lateral, so that the
  // planner walks (store, e-mail or address, time) backwards instead of gathering every match.
  // `says`: the claim says repeat_claimer already (read from the row each side reads anyway), so
  // a filing need not queue it (`related`).
  const claimsWhere = (match: RawBuilder<unknown>) => sql`select o.id, o.created_at,
          o.risk_signals @> '[{"code": "repeat_claimer"}]'::jsonb as says
        from claims o where ${match} and ${near}
        order by o.created_at desc limit ${most}`;
  const byAddress = sql`
      union
      select a.id, a.created_at, a.says from subject c cross join lateral (
        ${claimsWhere(sql`o.shipping_address_key = c.address`)}) a`;
  return sql`repeat_all as (
      select e.id, e.created_at, e.says from subject c cross join lateral (
        ${claimsWhere(sql`lower(o.author_email) = c.email`)}) e${address ? byAddress : sql``}
    ), repeat as (
      select (select count(*) from repeat_all) as count, coalesce((
        select array_agg(n.id order by n.created_at, n.id) from (
          select r.id, r.created_at from subject c, repeat_all r
          order by abs(extract(epoch from r.created_at - c.created_at)), r.id limit ${RISK.relatedAtMost}
        ) n), '{}') as ids
    ), repeat_signal as (
      select 1 as n, jsonb_build_object('code', 'repeat_claimer',
        'detail', format('The same e-mail or shipping address is on %s other claims of this store filed within %s days of this one.',
          case when r.count >= ${most}::int then 'at least ' || ${most}::int else r.count::text end, ${RISK.repeatDays}::int),
        'relatedClaimIds', to_jsonb(r.ids)) as signal
      from repeat r where r.count >= ${RISK.repeatOthers}
    )`;
}

/**
 * photo_reused: the store's photos on other claims within RISK.photoBits of one of this
 * claim's, as the reuse search found them when each photo was stored (`file_matches`, both
 * ways: files/photo-matches.ts), read by key.
 */
function photoReused(): RawBuilder<unknown> {
  return sql`matches as (
      select o.claim_id, min(k.bits) as bits
      from subject c cross join mine m
      join file_matches k on k.file_id = m.id
      join files o on o.id = k.match_id
      where o.store_id = c.store_id and o.claim_id is not null and o.claim_id <> c.id
      group by o.claim_id
    ), photo_signal as (
      select 2 as n, jsonb_build_object('code', 'photo_reused',
        'detail', format('A photo of this claim matches a photo on %s other %s of this store (%s of 64 bits differ at the closest; 0 is the same picture).',
          count(*), case when count(*) = 1 then 'claim' else 'claims' end, min(bits)),
        'relatedClaimIds', to_jsonb((array_agg(claim_id order by bits, claim_id))[1:${RISK.relatedAtMost}])) as signal
      from matches having count(*) > 0
    )`;
}

/** carrier_delivered: a missing or not-received claim on a package the carrier reported delivered, with its proof. */
function carrierDelivered(): RawBuilder<unknown> {
  return sql`delivered as (
      select p.* from packages p
      where p.status = 'delivered' and exists (select 1 from lines where issue_type = any(${NOT_RECEIVED_TYPES}::text[]))
      order by p.delivered_at nulls last, p.tracking_number collate "C" limit 1
    ), delivered_signal as (
      select 3 as n, jsonb_build_object('code', 'carrier_delivered',
        'detail', format('The carrier%s reported package %s delivered%s%s%s.',
          coalesce(' (' || d.carrier || ')', ''), d.tracking_number,
          coalesce(' on ' || to_char(d.delivered_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI "UTC"'), ''),
          coalesce(', signed for by ' || (d.delivery_proof ->> 'signedBy'), ''),
          coalesce(', with a photo of the delivery: ' || (d.delivery_proof ->> 'photoUrl'), '')),
        'relatedClaimIds', '[]'::jsonb) as signal
      from delivered d
    )`;
}

/**
 * filed_before_delivery: a claim that needs the package in hand, filed while one of its
 * packages was on its way: its last event before the filing says so and none says delivered.
 * A fact of the filing: the events after it never change it.
 */
function filedBeforeDelivery(): RawBuilder<unknown> {
  return sql`on_the_way as (
      select p.tracking_number, e.status from subject c cross join packages p
      cross join lateral (
        select e.status from tracking_events e where e.package_id = p.id and e.occurred_at <= c.created_at
        order by e.occurred_at desc, e.id desc limit 1
      ) e
      where e.status = any(${ON_THE_WAY}::text[])
        and exists (select 1 from lines where issue_type = any(${IN_HAND_TYPES}::text[]))
        and not exists (select 1 from tracking_events d
          where d.package_id = p.id and d.status = 'delivered' and d.occurred_at <= c.created_at)
      order by p.tracking_number collate "C" limit 1
    ), transit_signal as (
      select 4 as n, jsonb_build_object('code', 'filed_before_delivery',
        'detail', format('Filed for an issue that needs the package in hand while package %s was %s, not yet delivered.',
          w.tracking_number, replace(w.status, '_', ' ')),
        'relatedClaimIds', '[]'::jsonb) as signal
      from on_the_way w
    )`;
}

/**
 * amount_outlier: claimed value over RISK.outlierFactor × the median of the store's earlier
 * claims of the window (the latest RISK.outlierAtMost of them: a store filing more in 90 days
 * has its median from those, which keeps a filing's cost bounded).
 */
function amountOutlier(): RawBuilder<unknown> {
  // The latest RISK.outlierAtMost earlier claims of the window, read backwards on the value
  // index: a bounded cost at filing, however many claims a store has.
  const latest = sql`select o.claimed_value from claims o
        where o.store_id = c.store_id and o.claimed_currency = c.currency and o.claimed_value is not null
          and o.created_at >= c.created_at - make_interval(days => ${RISK.outlierDays}) and o.created_at < c.created_at
          and o.deleted_at is null
        order by o.created_at desc limit ${RISK.outlierAtMost}`;
  const half = Math.floor(RISK.outlierAtMost / 2) + 1;
  // Read only for a claim with a claimed value (without one the signal cannot hold), and only
  // when `settled` is not: more than half of the most values the median is of are each at
  // least a third of the claimed value (in the same arithmetic as the signal's test), so are
  // both middle ones and then the median, and the claim is no outlier. The read stops at the
  // `half`th such value: a typical claim settles there, short of RISK.outlierAtMost.
  return sql`settled as (
      select count(*) >= ${half}::int as settled from (
        select 1 from subject c join claimed v on v.amount is not null cross join lateral (${latest}) e
        where ${RISK.outlierFactor} * e.claimed_value::float8 >= v.amount::float8
        limit ${half}::int
      ) h
    ), median as (
      select percentile_cont(0.5) within group (order by e.claimed_value) as value, count(*) as claims
      from subject c join claimed v on v.amount is not null cross join lateral (${latest}) e
      where not (select settled from settled)
    ), outlier_signal as (
      select 5 as n, jsonb_build_object('code', 'amount_outlier',
        'detail', format('Claimed value %s %s is over %s times the store''s median claim of the last %s days, %s %s (of %s claims).',
          round(v.amount, 2), c.currency, ${RISK.outlierFactor}::int, ${RISK.outlierDays}::int,
          round(m.value::numeric, 2), c.currency, m.claims),
        'relatedClaimIds', '[]'::jsonb) as signal
      from subject c, claimed v, median m
      where m.claims >= ${RISK.outlierMinClaims} and v.amount > ${RISK.outlierFactor} * m.value
    )`;
}

/**
 * missing_photos: a line of an issue type in the store's `photosRequiredFor` (D56; its
 * default without a settings row, as `photosRequiredFor()` reads it) and no photo anywhere on
 * the claim: no item image, no message media. Read here from the same column, so the risk
 * stays one statement.
 */
function missingPhotos(claimId: string, messages: boolean): RawBuilder<unknown> {
  const noMedias = messages
    ? sql`
        and not exists (select 1 from claim_messages m where m.claim_id = ${claimId} and jsonb_array_length(m.medias) > 0)`
    : sql``;
  return sql`required as (
      select coalesce(
        (select ms.photos_required_for from merchant_settings ms join subject c on ms.store_id = c.store_id),
        ${[...DEFAULT_PHOTOS_REQUIRED_FOR]}::text[]) as types
    ), unphotographed as (
      select array_agg(distinct l.issue_type order by l.issue_type) as types
      from lines l, required r
      where l.issue_type = any(r.types)
        and not exists (select 1 from lines p where jsonb_array_length(p.images) > 0)${noMedias}
    ), photos_signal as (
      select 6 as n, jsonb_build_object('code', 'missing_photos',
        'detail', format('No photo came with this claim, though the store asks for photos of %s.',
          lower(replace(array_to_string(u.types, ', '), '_', ' '))),
        'relatedClaimIds', '[]'::jsonb) as signal
      from unphotographed u where u.types is not null
    )`;
}

/**
 * The signals of the facts before them (`subject`, `lines`, `mine`): CTE `signals` (`list`,
 * `n`) and `risk_now`, the claim's `level`, its `signals` and `body`, the text of its `risk`
 * in the `claim/created` body.
 */
function signalsOf(claimId: string, parts: Parts): RawBuilder<unknown> {
  // Each part's steps and the signal it ends in, in the order of the list; those `parts` leaves out are not written.
  const held: [boolean, RawBuilder<unknown>, string][] = [
    [true, repeatClaimer(parts.address), 'repeat_signal'],
    [parts.photos, photoReused(), 'photo_signal'],
    [parts.delivered, carrierDelivered(), 'delivered_signal'],
    [parts.transit, filedBeforeDelivery(), 'transit_signal'],
    [parts.outlier, amountOutlier(), 'outlier_signal'],
    [parts.missingPhotos, missingPhotos(claimId, parts.messages), 'photos_signal'],
  ];
  const kept = held.filter(([on]) => on);
  const steps = [derivedFacts(parts), ...kept.map(([, step]) => step)];
  const union = kept.map(([, , signal]) => sql`select * from ${sql.raw(signal)}`);
  return sql`${sql.join(steps, sql`, `)}, signals as (
      select coalesce(jsonb_agg(s.signal order by s.n), '[]'::jsonb) as list, count(*) as n from (
        ${sql.join(union, sql` union all `)}
      ) s
    ), risk_now as (
      select r.level, s.list as signals, jsonb_build_object('level', r.level, 'signals', s.list)::text as body
      from signals s
      cross join lateral (select case when s.n = 0 then 'low' when s.n = 1 then 'medium' else 'high' end as level) r
    )`;
}

/**
 * Queues the claims this one's signals name whose own signals may now see it, in one step
 * `related`: at filing (`repeat`), the claims of the same shopper that do not say
 * repeat_claimer yet (a repeat claimer's every filing would otherwise send all its nearest
 * claims to the sweep again, only to count one more; only a filing changes what they count, a
 * claim's e-mail, address and filing time staying as filed); always, the claims whose photos match
 * this one's and do not name it yet (a photo that came later with a message is seen from both
 * sides). A claim computed again names those it queued, so two claims never queue each other
 * back and forth.
 */
function related(kinds: { repeat: boolean; photos: boolean }): RawBuilder<unknown> {
  // The same shopper's nearest claims say whether they say repeat_claimer as `repeat_all` read
  // them. A matching photo's claim is read by its id, whatever the statistics say: as an
  // anti-join, a plan made when the store had few claims read every claim of the table at each
  // filing (10 ms a filing at 628 claims, growing with each).
  const byRepeat = sql`select a.id from repeat_all a, repeat r where not a.says and a.id = any(r.ids)`;
  const storedSignals = (id: RawBuilder<unknown>) =>
    sql`cross join lateral (select x.risk_signals from claims x where x.id = ${id} limit 1) x`;
  const byPhoto = sql`select m.claim_id as id from subject c cross join lateral (
          select claim_id from matches order by bits, claim_id limit ${RISK.relatedAtMost}) m
        ${storedSignals(sql`m.claim_id`)}
        where not x.risk_signals @> jsonb_build_array(
          jsonb_build_object('code', 'photo_reused', 'relatedClaimIds', jsonb_build_array(c.id)))`;
  const branches = [...(kinds.repeat ? [byRepeat] : []), ...(kinds.photos ? [byPhoto] : [])];
  return sql`related as (${queueClaimRisk(sql`
      select id from (${sql.join(branches, sql` union `)}) related order by id`)})`;
}

/**
 * The steps that compute the risk of a claim its statement is filing on a live order, for
 * that statement (after its `source`): CTE `risk_now` (`level`, `signals`, `body`) and
 * `claimed` (`amount`), which the claim's insert writes with it and `claim/created` carries,
 * and the related claims queued. The same signals as `riskStatement`'s, from what is being
 * written instead of a row: no update of the claim after its insert, no rewrite of the event.
 */
export function filingRiskSteps(f: Filing): RawBuilder<unknown> {
  const parts = filingParts(f);
  return sql`${filingFacts(f, parts)}, ${signalsOf(f.id, parts)}, ${related({ repeat: true, photos: parts.photos })}`;
}

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
 * The one statement that computes and writes a claim's risk (D57), answering it as
 * `{riskLevel, riskSignals}` (no row when the claim does not exist).
 */
export function riskStatement(claimId: string, write: RiskWrite = {}) {
  return sql<{ riskLevel: 'low' | 'medium' | 'high'; riskSignals: unknown[] }>`
    with ${writtenFacts(claimId)}, ${signalsOf(claimId, ALL_PARTS)}, written as (
      update claims set risk_level = r.level, risk_signals = r.signals, claimed_value = v.amount,
        claimed_currency = c.currency
      from subject c, risk_now r, claimed v
      where claims.id = c.id
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
        '"risk":' || replace(jsonb_build_object('level', w.risk_level, 'signals', w.risk_signals)::text, '\\', '\\\\') || '}')::json
      from written w where e.id = ${write.eventId}
    )`
        : sql``
    }, ${related({ repeat: write.filing ?? false, photos: true })}
    select risk_level, risk_signals from written
  `;
}
