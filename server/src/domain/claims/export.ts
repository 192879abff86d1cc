import { type ApiVersion, CLAIM_EXPORT_COLUMNS, CLAIM_EXPORT_LIMIT, claimTypeIn } from '@protection-service/contract';
import { sql } from 'kysely';
import type { Db } from '../../db/database';
import { transact } from '../../db/transact';
import { refuse } from '../../lib/refusal';
import { auditActorOf, recordAudit } from '../audit/record';
import type { Actor } from './moves';
import {
  type ClaimExportRow,
  type ClaimFilters,
  checkFilters,
  claimExportPageQuery,
  claimFilterConditions,
} from './read';

/** Rows read from the database at a time: the memory an export holds, whatever its size. */
export const EXPORT_BATCH = 500;

/** D52: a cell a spreadsheet would run as a formula gets a leading `'`. */
const FORMULA_START = /^[=+\-@\t\r]/;

/** One CSV field (RFC 4180): neutralised, then quoted when it holds a quote, comma or line break. */
export function csvField(value: string | null | undefined): string {
  let text = value ?? '';
  if (FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

const csvLine = (fields: readonly (string | null | undefined)[]) => `${fields.map(csvField).join(',')}\r\n`;

/**
 * The cells of one claim, in CLAIM_EXPORT_COLUMNS' order. `items` comes written by the query;
 * `resolution`: the resolution types joined by `; `; `amount` and `currency`: the
 * resolutions' paid values summed per currency (in the claim's order currency when a
 * resolution names none), one per currency joined by `; `.
 */
export function claimCells(row: ClaimExportRow, version: ApiVersion): string[] {
  const paid = new Map<string, number>();
  for (const [, paidValue, paidCurrency] of row.resolutions) {
    if (paidValue === null) continue;
    const currency = paidCurrency ?? row.currency;
    paid.set(currency, (paid.get(currency) ?? 0) + Number(paidValue));
  }
  return [
    row.id,
    row.createdAt.toISOString(),
    row.claimState,
    claimTypeIn(version, row.claimType) ?? '',
    row.sourceOrderId,
    row.sourceOrderNumber,
    row.authorName ?? '',
    row.authorEmail ?? '',
    row.items,
    row.resolutions.map(([type]) => type).join('; '),
    [...paid.values()].map((v) => String(Math.round(v * 1e6) / 1e6)).join('; '),
    [...paid.keys()].join('; '),
  ];
}

/**
 * `GET /v1/claims/export` (D52): checks the filters as the list does and counts the matching
 * claims; more than CLAIM_EXPORT_LIMIT is refused (422) before anything is sent. Records
 * `claims.exported` (D53) with the filters and the count, then answers the CSV's lines: the
 * header, then the claims in the list's order (their claim types as the caller's version names
 * them, D54), read EXPORT_BATCH at a time by keyset with
 * only the columns the CSV prints (claimExportPageQuery, the list's filters and keyset), so
 * an export of any size holds one batch in memory.
 */
export async function startClaimExport(
  db: Db,
  actor: Actor,
  q: ClaimFilters,
  version: ApiVersion,
): Promise<{ count: number; lines: AsyncGenerator<string> }> {
  checkFilters(q);
  const { rows } = await sql<{ n: string }>`
    select count(*) as n from (
      select 1 from claims c where ${sql.join(claimFilterConditions(actor.storeId, q), sql` and `)}
      limit ${CLAIM_EXPORT_LIMIT + 1}
    ) matching
  `.execute(db);
  const count = Number(rows[0]?.n ?? 0);
  if (count > CLAIM_EXPORT_LIMIT) {
    throw refuse.tooLarge(
      `the export holds at most ${CLAIM_EXPORT_LIMIT} claims and these filters match more: narrow them (D52)`,
    );
  }
  await transact(db, (trx) =>
    recordAudit(trx, {
      store: actor.storeId,
      actor: auditActorOf(actor),
      action: 'claims.exported',
      target: { type: 'claims', id: actor.storeId },
      changes: { filters: q, rows: count },
    }),
  );
  return { count, lines: exportLines(db, actor.storeId, q, version) };
}

async function* exportLines(db: Db, storeId: string, q: ClaimFilters, version: ApiVersion): AsyncGenerator<string> {
  yield csvLine(CLAIM_EXPORT_COLUMNS);
  const descending = q.order === 'desc';
  let after: { createdAt: string; id: string } | undefined;
  for (;;) {
    const { rows } = await claimExportPageQuery(storeId, q, {
      after,
      limit: EXPORT_BATCH,
      backward: false,
      descending,
    }).execute(db);
    if (rows.length === 0) return;
    yield rows.map((row) => csvLine(claimCells(row, version))).join('');
    if (rows.length < EXPORT_BATCH) return;
    const last = rows.at(-1)!;
    after = { createdAt: last.keysetAt, id: last.id };
  }
}
