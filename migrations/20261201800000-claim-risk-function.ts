import { type Kysely, sql } from 'kysely';

/**
 * D57: a claim's risk computed by one function, `claim_risk`, from the facts its caller gives
 * (a claim being filed, from what its statement writes; a claim already written, from its
 * rows), where each signal was a part of the claim's own statement. PostgreSQL sets up every
 * node of a statement's plan at each run, whether or not its input is empty: the parts made
 * the filing's plan twice as large (146 nodes against 75) and cost a quarter of the filing
 * (0.75 of it with the risk). A function runs only the reads its facts call for, each a small
 * plan kept for the connection, and words the signals in plain expressions.
 *
 * `rules` carries the thresholds and the lists of issue types and statuses (its keys are those
 * of `RISK` and the lists of server/src/domain/claims/risk/signals.ts, the lists as array
 * text), so that they stay where the service defines them. It answers the level, the signals in
 * their order, and the claimed value with its currency (the order's), and queues for the sweep
 * the related claims whose own signals may now see this one (`claim_risk_pending`, ordered by
 * id as its triggers queue): at filing (`filing`), the same shopper's nearest claims that do not
 * say repeat_claimer yet; always, the claims whose photos match this one's and do not name it.
 * Every read is bounded by the claim's store.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create function claim_risk(
      rules jsonb, store_key text, claim_key text, order_key text, filed_at timestamptz,
      shopper_email text, shopper_address text, issue_types text[], quantities int[], item_ids text[],
      fulfillment_ids text[], with_images boolean, file_ids text[], with_medias boolean, filing boolean
    ) returns table (level text, signals jsonb, amount numeric, currency text)
    language plpgsql volatile as $$
    declare
      repeat_days int := (rules ->> 'repeatDays')::int;
      repeat_most int := (rules ->> 'repeatCountedAtMost')::int;
      related_most int := (rules ->> 'relatedAtMost')::int;
      repeat_since timestamptz := filed_at - make_interval(days => repeat_days);
      repeat_until timestamptz := filed_at + make_interval(days => repeat_days);
      -- The packages of the fulfillments the claim names, or of its whole order when it names none.
      whole_order boolean := cardinality(array_remove(fulfillment_ids, null)) = 0;
      found_signals jsonb := '[]';
      queue text[] := '{}';
      others bigint;
      nearest_ids text[];
      by_nearness text[];
      unsaid_ids text[];
      closest_bits int;
      matched jsonb;
      delivered record;
      on_the_way_then record;
      settled boolean;
      median float8;
      earlier bigint;
      outlier_factor int;
      outlier_days int;
      outlier_most int;
      required text[];
      unphotographed text[] := '{}';
      issue_type text;
    begin
      -- repeat_claimer: the store's other claims of the same e-mail or shipping address within
      -- repeat_days, each side read newest first along its index and stopped at repeat_most.
      -- A claim without an address (every claim filed on a live order, D23) reads the e-mail's
      -- side alone.
      if shopper_address is null then
        select count(*), coalesce(array_agg(u.id order by u.created_at, u.id), '{}'),
          coalesce(array_agg(u.id order by abs(extract(epoch from u.created_at - filed_at)), u.id), '{}'),
          coalesce(array_agg(u.id) filter (where not u.says), '{}')
        into others, nearest_ids, by_nearness, unsaid_ids
        from (
          select o.id, o.created_at, o.risk_signals @> '[{"code": "repeat_claimer"}]'::jsonb as says
            from claims o
            where o.store_id = store_key and lower(o.author_email) = shopper_email and o.id <> claim_key
              and o.deleted_at is null and o.created_at between repeat_since and repeat_until
            order by o.created_at desc limit repeat_most
        ) u;
      else
        select count(*), coalesce(array_agg(u.id order by u.created_at, u.id), '{}'),
          coalesce(array_agg(u.id order by abs(extract(epoch from u.created_at - filed_at)), u.id), '{}'),
          coalesce(array_agg(u.id) filter (where not u.says), '{}')
        into others, nearest_ids, by_nearness, unsaid_ids
        from (
          (select o.id, o.created_at, o.risk_signals @> '[{"code": "repeat_claimer"}]'::jsonb as says
            from claims o
            where o.store_id = store_key and lower(o.author_email) = shopper_email and o.id <> claim_key
              and o.deleted_at is null and o.created_at between repeat_since and repeat_until
            order by o.created_at desc limit repeat_most)
          union
          (select o.id, o.created_at, o.risk_signals @> '[{"code": "repeat_claimer"}]'::jsonb
            from claims o
            where o.store_id = store_key and o.shipping_address_key = shopper_address and o.id <> claim_key
              and o.deleted_at is null and o.created_at between repeat_since and repeat_until
            order by o.created_at desc limit repeat_most)
        ) u;
      end if;
      -- related_most of them named, the nearest in time, in the order they were filed.
      if others > related_most then
        by_nearness := by_nearness[1:related_most];
        nearest_ids := array(select o.id from claims o where o.id = any(by_nearness) order by o.created_at, o.id);
        unsaid_ids := array(select u.id from unnest(unsaid_ids) u (id) where u.id = any(by_nearness));
      end if;
      if others >= (rules ->> 'repeatOthers')::int then
        found_signals := found_signals || jsonb_build_array(jsonb_build_object('code', 'repeat_claimer',
          'detail', format('The same e-mail or shipping address is on %s other claims of this store filed within %s days of this one.',
            case when others >= repeat_most then 'at least ' || repeat_most else others::text end, repeat_days),
          'relatedClaimIds', to_jsonb(nearest_ids)));
      end if;
      -- Only a filing changes what the same shopper's claims count (their e-mail, address and
      -- filing time stay as filed); one that says repeat_claimer already counts one more alike.
      if filing then
        queue := unsaid_ids;
      end if;

      -- photo_reused: the store's photos on other claims that the reuse search found near one of
      -- this claim's when each was stored (file_matches, both ways), read by key.
      if cardinality(file_ids) > 0 then
        select count(*), min(m.bits),
          coalesce(jsonb_agg(m.claim_id order by m.bits, m.claim_id) filter (where m.nearness <= related_most), '[]'),
          coalesce(array_agg(m.claim_id) filter (where m.nearness <= related_most), '{}')
        into others, closest_bits, matched, nearest_ids
        from (
          select o.claim_id, min(k.bits) as bits, row_number() over (order by min(k.bits), o.claim_id) as nearness
          from file_matches k join files o on o.id = k.match_id
          where k.file_id = any(file_ids) and o.store_id = store_key and o.claim_id is not null and o.claim_id <> claim_key
          group by o.claim_id
        ) m;
        if others > 0 then
          found_signals := found_signals || jsonb_build_array(jsonb_build_object('code', 'photo_reused',
            'detail', format('A photo of this claim matches a photo on %s other %s of this store (%s of 64 bits differ at the closest; 0 is the same picture).',
              others, case when others = 1 then 'claim' else 'claims' end, closest_bits),
            'relatedClaimIds', matched));
          -- A photo that came later with a message is seen from both sides: the matched claims
          -- that do not name this one yet are computed again.
          queue := queue || array(
            select x.id from claims x
            where x.id = any(nearest_ids) and not x.risk_signals @> jsonb_build_array(
              jsonb_build_object('code', 'photo_reused', 'relatedClaimIds', jsonb_build_array(claim_key))));
        end if;
      end if;

      -- The two signals of its packages, read only where the claim's issues call for them and
      -- the order has a package at all (a store may not track its parcels, D54).
      if issue_types && ((rules ->> 'notReceived')::text[] || (rules ->> 'inHand')::text[]) and exists (
        select 1 from tracking_packages p where p.store_id = store_key and p.order_id = order_key
      ) then
      -- carrier_delivered: a missing or not-received claim on a package the carrier reported
      -- delivered, with its proof.
      if issue_types && (rules ->> 'notReceived')::text[] then
        select p.carrier, p.tracking_number, p.delivered_at, p.delivery_proof into delivered
        from tracking_packages p
        where p.store_id = store_key and p.order_id = order_key and p.status = 'delivered'
          and (whole_order or p.source_fulfillment_id = any(fulfillment_ids))
        order by p.delivered_at nulls last, p.tracking_number collate "C" limit 1;
        if found then
          found_signals := found_signals || jsonb_build_array(jsonb_build_object('code', 'carrier_delivered',
            'detail', format('The carrier%s reported package %s delivered%s%s%s.',
              coalesce(' (' || delivered.carrier || ')', ''), delivered.tracking_number,
              coalesce(' on ' || to_char(delivered.delivered_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI "UTC"'), ''),
              coalesce(', signed for by ' || (delivered.delivery_proof ->> 'signedBy'), ''),
              coalesce(', with a photo of the delivery: ' || (delivered.delivery_proof ->> 'photoUrl'), '')),
            'relatedClaimIds', '[]'::jsonb));
        end if;
      end if;

      -- filed_before_delivery: a claim that needs the package in hand, filed while one of its
      -- packages was on its way: its last event before the filing says so and none says
      -- delivered. A fact of the filing: the events after it never change it.
      if issue_types && (rules ->> 'inHand')::text[] then
        select p.tracking_number, e.status into on_the_way_then
        from tracking_packages p
        cross join lateral (
          select e.status from tracking_events e where e.package_id = p.id and e.occurred_at <= filed_at
          order by e.occurred_at desc, e.id desc limit 1
        ) e
        where p.store_id = store_key and p.order_id = order_key
          and (whole_order or p.source_fulfillment_id = any(fulfillment_ids))
          and e.status = any((rules ->> 'onTheWay')::text[])
          and not exists (select 1 from tracking_events d
            where d.package_id = p.id and d.status = 'delivered' and d.occurred_at <= filed_at)
        order by p.tracking_number collate "C" limit 1;
        if found then
          found_signals := found_signals || jsonb_build_array(jsonb_build_object('code', 'filed_before_delivery',
            'detail', format('Filed for an issue that needs the package in hand while package %s was %s, not yet delivered.',
              on_the_way_then.tracking_number, replace(on_the_way_then.status, '_', ' ')),
            'relatedClaimIds', '[]'::jsonb));
        end if;
      end if;
      end if;

      -- amount_outlier: the claimed value (the sum over the items that name an order line of
      -- quantity times its unit price) over outlier_factor times the median of the store's
      -- earlier claims of the window, the latest outlier_most of them, read backwards on the
      -- value index; only when not settled: more than half of those are each at least a third
      -- of the claimed value, so are both middle ones and then the median. The read stops at the
      -- half-plus-one-th such value, where a typical claim settles.
      if cardinality(array_remove(item_ids, null)) > 0 then
        select o.currency, (
            select sum(l.quantity * li.price)
            from unnest(item_ids, quantities) l (item_id, quantity)
            join order_line_items li on li.order_id = o.id and li.source_item_id = l.item_id)
        into currency, amount
        from orders o where o.id = order_key;
        if amount is not null then
          outlier_factor := (rules ->> 'outlierFactor')::int;
          outlier_days := (rules ->> 'outlierDays')::int;
          outlier_most := (rules ->> 'outlierAtMost')::int;
          select count(*) >= outlier_most / 2 + 1 into settled from (
            select 1 from (
              select o.claimed_value from claims o
              where o.store_id = store_key and o.claimed_currency = currency and o.claimed_value is not null
                and o.created_at >= filed_at - make_interval(days => outlier_days) and o.created_at < filed_at
                and o.deleted_at is null
              order by o.created_at desc limit outlier_most
            ) e
            where outlier_factor * e.claimed_value::float8 >= amount::float8
            limit outlier_most / 2 + 1
          ) h;
          if not settled then
            select percentile_cont(0.5) within group (order by e.claimed_value), count(*) into median, earlier
            from (
              select o.claimed_value from claims o
              where o.store_id = store_key and o.claimed_currency = currency and o.claimed_value is not null
                and o.created_at >= filed_at - make_interval(days => outlier_days) and o.created_at < filed_at
                and o.deleted_at is null
              order by o.created_at desc limit outlier_most
            ) e;
            if earlier >= (rules ->> 'outlierMinClaims')::int and amount > outlier_factor * median then
              found_signals := found_signals || jsonb_build_array(jsonb_build_object('code', 'amount_outlier',
                'detail', format('Claimed value %s %s is over %s times the store''s median claim of the last %s days, %s %s (of %s claims).',
                  round(amount, 2), currency, outlier_factor, outlier_days, round(median::numeric, 2), currency, earlier),
                'relatedClaimIds', '[]'::jsonb));
            end if;
          end if;
        else
          currency := null;
        end if;
      end if;

      -- missing_photos: an item of an issue type in the store's photosRequiredFor (D56; its
      -- default without a settings row) and no photo anywhere on the claim: no item image, no
      -- message media. The issue types come distinct and in order, and are named so.
      if not with_images and not with_medias and cardinality(issue_types) > 0 then
        select ms.photos_required_for into required from merchant_settings ms where ms.store_id = store_key;
        required := coalesce(required, (rules ->> 'photosRequiredByDefault')::text[]);
        foreach issue_type in array issue_types loop
          if issue_type = any(required) then
            unphotographed := unphotographed || issue_type;
          end if;
        end loop;
        if cardinality(unphotographed) > 0 then
          found_signals := found_signals || jsonb_build_array(jsonb_build_object('code', 'missing_photos',
            'detail', format('No photo came with this claim, though the store asks for photos of %s.',
              lower(replace(array_to_string(unphotographed, ', '), '_', ' '))),
            'relatedClaimIds', '[]'::jsonb));
        end if;
      end if;

      if cardinality(queue) > 0 then
        insert into claim_risk_pending (claim_id)
        select distinct q.id from unnest(queue) q (id) order by q.id
        on conflict (claim_id) do update set changes = claim_risk_pending.changes + 1;
      end if;
      level := case jsonb_array_length(found_signals) when 0 then 'low' when 1 then 'medium' else 'high' end;
      signals := found_signals;
      return next;
    end $$;
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop function claim_risk`.execute(db);
}
