import type {
  TClaimNote,
  TClaimStoreCredit,
  TClaimTimeline,
  TTimelineActor,
  TTimelineEntry,
} from '@protection-service/contract';
import { type RawBuilder, sql } from 'kysely';
import type { Db } from '../../db/database';
import { transact } from '../../db/transact';
import { newId } from '../../lib/ids';
import { roundMoney } from '../../lib/money';
import { refuse } from '../../lib/refusal';
import { auditActorOf, recordAudit } from '../audit/record';
import type { Actor } from './moves';

/**
 * D51: who an id recorded on a claim names, as a timeline actor. Changes record one id: a
 * dashboard user's (the person behind a staff token) or an app's client id, as
 * `claim_resolutions.user_id` does; so the id is looked up as a user first, then as an app.
 * No id: the service itself. `id` is an SQL expression of the row being read.
 */
const actorOf = (id: RawBuilder<unknown>) => sql<TTimelineActor>`(
  select case
    when x.id is null then json_build_object('type', 'system', 'id', null, 'name', null)
    when u.id is not null then json_build_object('type', 'user', 'id', u.id,
      'name', coalesce(nullif(concat_ws(' ', u.first_name, u.last_name), ''), u.email))
    else json_build_object('type', 'app', 'id', x.id, 'name', a.name)
  end
  from (select ${id}::text as id) x
  left join dashboard_users u on u.id = x.id
  left join apps a on a.client_id = x.id
)`;

/** The id a staff note or a brand message records as its writer: the person's (D49), else the app's client id. */
const writerOf = (actor: Actor) => actor.userId ?? actor.clientId;

interface EntryRow {
  currency: string;
  at: Date | null;
  body: Record<string, unknown> | null;
  actor: TTimelineActor | null;
}

/**
 * `GET /v1/claims/:claimId/timeline` (D51): everything that happened to the store's claim,
 * oldest first, in one query: state moves (with their notes), resolutions, store credits
 * (with their e-mail status, D42), messages and staff notes, each with its actor. Entries of
 * one instant (an approval writes its resolutions, credits and move in one transaction) keep
 * that order: move, resolutions, credits. Refused (404) when the store has no such claim (D7).
 */
export async function readTimeline(db: Db, storeId: string, claimId: string): Promise<TClaimTimeline> {
  const { rows } = await sql<EntryRow>`
    with claim as (
      select c.id, o.currency from claims c join orders o on o.id = c.order_id
      where c.store_id = ${storeId} and c.id = ${claimId}
    )
    select claim.currency, e.at, e.body, e.actor from claim left join lateral (
      select 0 as rank, lpad(sc.id::text, 20, '0') as seq, sc.created_at as at,
        json_build_object('type', 'state_change', 'from', sc.from_state, 'to', sc.to_state, 'note', sc.note) as body,
        ${actorOf(sql`coalesce(sc.user_id, sc.client_id)`)} as actor
      from claim_state_changes sc where sc.claim_id = claim.id
      union all
      select 1, lpad(r.position::text, 20, '0'), r.created_at,
        json_build_object('type', 'resolution', 'resolutionId', r.id, 'resolutionType', r.resolution_type,
          'itemId', r.item_id, 'quantity', r.quantity, 'paidValue', r.paid_value, 'paidCurrency', r.paid_currency,
          'details', r.resolution_details),
        ${actorOf(sql`r.user_id`)}
      from claim_resolutions r where r.claim_id = claim.id
      union all
      select 2, lpad(r.position::text, 20, '0'), s.created_at,
        json_build_object('type', 'store_credit', 'code', s.code, 'creditValue', s.credit_value,
          'bonusValue', s.bonus_value, 'totalValue', s.total_value, 'currency', s.credit_currency,
          'emailStatus', s.email_status, 'emailTime', s.email_time),
        ${actorOf(sql`r.user_id`)}
      from claim_store_credits s join claim_resolutions r on r.id = s.resolution_id where s.claim_id = claim.id
      union all
      select 3, m.id, m.created_at,
        json_build_object('type', 'message', 'messageId', m.id, 'senderType', m.sender_type, 'message', m.message,
          'medias', m.medias),
        case
          when m.sender_type = 'customer' then json_build_object('type', 'shopper', 'id', null, 'name', m.author_name)
          -- A brand message from before writers were recorded: an app's, by its author name.
          when m.actor_id is null then json_build_object('type', 'app', 'id', null, 'name', m.author_name)
          else ${actorOf(sql`m.actor_id`)}
        end
      from claim_messages m where m.claim_id = claim.id
      union all
      select 4, n.id, n.created_at, json_build_object('type', 'note', 'noteId', n.id, 'note', n.note),
        ${actorOf(sql`n.actor_id`)}
      from claim_notes n where n.claim_id = claim.id
    ) e on true
    order by e.at, e.rank, e.seq
  `.execute(db);
  if (rows.length === 0) throw refuse.missing('claim not found');
  return rows.flatMap((row) => (row.body === null ? [] : [toEntry(row)]));
}

// JSON from PostgreSQL: timestamps carry microseconds and an offset; D6 wants ms in UTC.
const isoOrNull = (v: unknown) => (v === null || v === undefined ? null : new Date(v as string).toISOString());

function toEntry(row: EntryRow): TTimelineEntry {
  const b = row.body!;
  const head = { at: row.at!.toISOString(), actor: row.actor! };
  const money = (v: unknown, currency: unknown) =>
    v === null || v === undefined ? null : roundMoney(v as number, (currency as string | null) ?? row.currency);
  switch (b.type) {
    case 'state_change':
      return { type: 'state_change', ...head, from: b.from, to: b.to, note: b.note } as TTimelineEntry;
    case 'resolution':
      return {
        type: 'resolution',
        ...head,
        resolutionId: b.resolutionId,
        resolutionType: b.resolutionType,
        itemId: b.itemId,
        quantity: b.quantity,
        paidValue: money(b.paidValue, b.paidCurrency),
        paidCurrency: b.paidCurrency,
        details: b.details,
      } as TTimelineEntry;
    case 'store_credit':
      return {
        type: 'store_credit',
        ...head,
        code: b.code as string,
        creditValue: money(b.creditValue, b.currency)!,
        bonusValue: money(b.bonusValue, b.currency)!,
        totalValue: money(b.totalValue, b.currency)!,
        currency: b.currency as string | null,
        emailStatus: b.emailStatus as TClaimStoreCredit['emailStatus'],
        emailTime: isoOrNull(b.emailTime),
      };
    case 'message':
      return {
        type: 'message',
        ...head,
        messageId: b.messageId,
        senderType: b.senderType,
        message: b.message,
        medias: b.medias,
      } as TTimelineEntry;
    default:
      return { type: 'note', ...head, noteId: b.noteId as string, note: b.note as string };
  }
}

/**
 * `POST /v1/claims/:claimId/notes` (D51): adds a staff note to the store's claim, written by
 * the caller, and answers it. Nothing else happens: no event, no e-mail, no change to the
 * claim's `updatedAt`; the shopper's page never shows notes (D41). Refused (404) when the
 * store has no such claim (D7).
 */
export async function addNote(db: Db, actor: Actor, claimId: string, note: string): Promise<TClaimNote> {
  return transact(db, async (trx) => {
    const written = await writeNote(trx, actor, claimId, note);
    // D53: that a note was added, not its words (they stay on the claim, for staff only).
    await recordAudit(trx, {
      store: actor.storeId,
      actor: auditActorOf(actor),
      action: 'claim.note_added',
      target: { type: 'claim', id: claimId },
      changes: { noteId: written.id },
    });
    return written;
  });
}

async function writeNote(db: Db, actor: Actor, claimId: string, note: string): Promise<TClaimNote> {
  const { rows } = await sql<{ id: string; claimId: string; note: string; createdAt: Date; actor: TTimelineActor }>`
    with written as (
      insert into claim_notes (id, claim_id, note, actor_id)
      select ${newId('cln')}, c.id, ${note}, ${writerOf(actor)}
      from claims c where c.store_id = ${actor.storeId} and c.id = ${claimId}
      returning id, claim_id, note, actor_id, created_at
    )
    select w.id, w.claim_id, w.note, w.created_at, ${actorOf(sql`w.actor_id`)} as actor from written w
  `.execute(db);
  const row = rows[0];
  if (!row) throw refuse.missing('claim not found');
  return { id: row.id, claimId: row.claimId, note: row.note, actor: row.actor, createdAt: row.createdAt.toISOString() };
}
