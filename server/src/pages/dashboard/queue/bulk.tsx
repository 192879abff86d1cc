// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import { createHash } from 'node:crypto';
import {
  type Client,
  ProtectionApiError,
  type TDenyReason,
  type TTransitionTargetState,
} from '@protection-service/sdk';
import { field, fields, formKey, seeOther } from '../forms';
import type { StoreForm } from '../handlers';
import { storePath } from '../paths';
import { DENY_REASON_WORDS, MOVE_TARGETS } from '../words';

/**
 * Bulk actions on the claim queue (D50): each selected claim goes through the API on its
 * own, and the page reports per claim what was done or refused (Polaris: "report the result
 * of each row"). Another store's claim id is refused as an unknown one is (D7).
 */

export const BULK_ACTIONS = {
  move: { value: 'move', label: 'Move', done: 'Moved' },
  decline: { value: 'decline', label: 'Decline', done: 'Declined' },
  message: { value: 'message', label: 'Send message', done: 'Message sent' },
} as const;
type BulkAction = keyof typeof BULK_ACTIONS;

/** A page holds 50 claims: a selection is at most that. */
const MAX_SELECTED = 50;

/** What happened to one claim, as a word the results list knows. */
const OUTCOMES = {
  done: 'done',
  replayed: 'done already (this form had been sent before)',
  conflict: 'refused: its state does not allow this, or someone changed it first',
  missing: 'refused: no such claim in this store',
  forbidden: 'refused: your role does not allow this',
  invalid: 'refused: the request was not valid',
} as const;
type Outcome = keyof typeof OUTCOMES;

/** `POST …/claims/bulk`. */
export async function bulkForm({ req, res, body, api }: StoreForm): Promise<void> {
  const action = field(body, 'action') as BulkAction;
  const back = safeBack(field(body, 'back'), req.params.storeId ?? '');
  const selected = [
    ...new Set(
      fields(body, 'claimId')
        .map((id) => id.trim())
        .filter((id) => id.length > 0 && id.length <= 64),
    ),
  ];
  const key = formKey(body);
  if (!(action in BULK_ACTIONS) || !key) return seeOther(res, withResults(back, action, []));
  if (selected.length === 0) return seeOther(res, `${back}${back.includes('?') ? '&' : '?'}notice=noneSelected`);
  const run = actionOf(action, body);
  if (!run) return seeOther(res, `${back}${back.includes('?') ? '&' : '?'}notice=bulkIncomplete`);
  const results: [string, Outcome][] = [];
  for (const claimId of selected.slice(0, MAX_SELECTED)) {
    results.push([claimId, await outcomeOf(() => run(api.client, claimId, perClaimKey(key, claimId)))]);
  }
  seeOther(res, withResults(back, action, results));
}

type Run = (client: Client, claimId: string, key: string) => Promise<{ status: number; headers: Headers }>;

function actionOf(action: BulkAction, body: Record<string, unknown>): Run | undefined {
  if (action === 'move') {
    const claimState = field(body, 'claimState') as TTransitionTargetState;
    if (!MOVE_TARGETS.includes(claimState)) return undefined;
    return (client, claimId, key) =>
      client.claims.transition({ params: { claimId }, body: { claimState }, headers: { 'idempotency-key': key } });
  }
  if (action === 'decline') {
    const reason = field(body, 'reason') as TDenyReason;
    if (!(reason in DENY_REASON_WORDS)) return undefined;
    return (client, claimId, key) =>
      client.claims.deny({ params: { claimId }, body: { reason }, headers: { 'idempotency-key': key } });
  }
  const message = field(body, 'message');
  if (message.length === 0 || message.length > 5000) return undefined;
  return (client, claimId, key) =>
    client.claims.postMessage({
      params: { claimId },
      body: { message, senderType: 'brand' },
      headers: { 'idempotency-key': key },
    });
}

async function outcomeOf(call: () => Promise<{ status: number; headers: Headers }>): Promise<Outcome> {
  let status: number;
  let replayed = false;
  try {
    const res = await call();
    status = res.status;
    replayed = res.headers.get('idempotent-replayed') === 'true';
  } catch (err) {
    if (!(err instanceof ProtectionApiError) || err.status >= 500) throw err;
    status = err.status;
  }
  if (status >= 200 && status < 300) return replayed ? 'replayed' : 'done';
  if (status === 404) return 'missing';
  if (status === 403) return 'forbidden';
  if (status === 409) return 'conflict';
  return 'invalid';
}

/** One key per claim of the form, the same on a resubmit (D33): each claim is acted on once. */
function perClaimKey(key: string, claimId: string): string {
  return `${key}.${createHash('sha256').update(claimId).digest('base64url').slice(0, 22)}`;
}

/** The queue view the form came from, or the queue's first page. */
function safeBack(back: string, storeId: string): string {
  const queue = storePath(storeId, 'claims');
  return back === queue || back.startsWith(`${queue}?`) ? back : queue;
}

function withResults(back: string, action: string, results: [string, Outcome][]): string {
  const query = new URLSearchParams();
  if (action in BULK_ACTIONS) query.set('did', action);
  for (const [claimId, outcome] of results) query.append('r', `${outcome}:${claimId}`);
  return `${back}${back.includes('?') ? '&' : '?'}${query}`;
}

/** The per-claim report of a bulk action, from the redirect's query. */
export function BulkResults(props: { query: Record<string, unknown> }) {
  const action = typeof props.query.did === 'string' ? BULK_ACTIONS[props.query.did as BulkAction] : undefined;
  const raw = props.query.r;
  const entries = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).filter(
    (r): r is string => typeof r === 'string',
  );
  if (!action || entries.length === 0) return null;
  const rows = entries.slice(0, MAX_SELECTED).flatMap((entry) => {
    const at = entry.indexOf(':');
    const outcome = entry.slice(0, at) as Outcome;
    return at > 0 && outcome in OUTCOMES ? [{ claimId: entry.slice(at + 1), outcome }] : [];
  });
  const done = rows.filter((r) => r.outcome === 'done' || r.outcome === 'replayed').length;
  return (
    <section class="card" aria-labelledby="bulk-title">
      <h2 id="bulk-title">{`${action.label}: ${done} of ${rows.length} claims`}</h2>
      <ul>
        {rows.map((r) => (
          <li>
            <span class="code">{r.claimId}</span>: {r.outcome === 'done' ? action.done : OUTCOMES[r.outcome]}
          </li>
        ))}
      </ul>
    </section>
  );
}
