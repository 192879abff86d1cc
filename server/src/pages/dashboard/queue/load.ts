import type { TClaimConnection, TClaimListQuery, TClaimType, TRiskLevel } from '@protection-service/sdk';
import { unwrap } from '@protection-service/sdk';
import type { Request } from 'express';
import type { StorePage } from '../handlers';
import { storePath } from '../paths';
import { CLAIM_TABS, TYPE_WORDS } from '../words';

/** What the queue shows (D50), read from its query string; anything unknown is left out. */
export interface QueueView {
  tab: (typeof CLAIM_TABS)[number];
  q: string;
  type?: TClaimType;
  from?: string;
  to?: string;
  order: 'asc' | 'desc';
  after?: string;
  /** D57: the risk levels shown (the "Risk" filter); all when none. */
  risk?: RiskChoice;
}

/** The "Risk" filter's choices (D57): one level, or medium and high together. */
export const RISK_CHOICES = {
  high: ['high'],
  elevated: ['medium', 'high'],
  medium: ['medium'],
  low: ['low'],
} as const satisfies Record<string, readonly TRiskLevel[]>;
export type RiskChoice = keyof typeof RISK_CHOICES;
const isRiskChoice = (value: string): value is RiskChoice => Object.hasOwn(RISK_CHOICES, value);

const DAY = /^\d{4}-\d{2}-\d{2}$/;
export const CLAIM_TYPES = Object.keys(TYPE_WORDS) as TClaimType[];

function one(value: unknown): string {
  return typeof value === 'string' ? value.trim() : '';
}

export function queueView(req: Request): QueueView {
  const tab = CLAIM_TABS.find((t) => t.key === one(req.query.tab)) ?? CLAIM_TABS[0]!;
  const type = one(req.query.type) as TClaimType;
  const from = one(req.query.from);
  const to = one(req.query.to);
  const after = one(req.query.after);
  const risk = one(req.query.risk);
  return {
    tab,
    q: one(req.query.q).slice(0, 320),
    type: CLAIM_TYPES.includes(type) ? type : undefined,
    from: DAY.test(from) ? from : undefined,
    to: DAY.test(to) ? to : undefined,
    order: one(req.query.order) === 'desc' ? 'desc' : 'asc',
    after: after && after.length <= 512 ? after : undefined,
    risk: isRiskChoice(risk) ? risk : undefined,
  };
}

/** The list call of a view (D51): one keyset page of 50, whatever the depth. */
export function listQuery(view: QueueView): TClaimListQuery {
  return {
    first: 50,
    order: view.order,
    ...(view.tab.queue ? { queue: view.tab.queue } : {}),
    ...(view.q ? { q: view.q } : {}),
    ...(view.type ? { claimType: view.type } : {}),
    ...(view.from ? { createdAtMin: `${view.from}T00:00:00.000Z` } : {}),
    ...(view.to ? { createdAtMax: `${view.to}T23:59:59.999Z` } : {}),
    ...(view.after ? { after: view.after } : {}),
    ...(view.risk ? { risk: [...RISK_CHOICES[view.risk]] } : {}),
  };
}

/** The queue's address for a view, with changes (a tab, the next page). */
export function queueHref(
  storeId: string,
  view: QueueView,
  change: Partial<Record<keyof QueueView, string | undefined>> = {},
): string {
  const values: Record<string, string | undefined> = {
    tab: view.tab.key,
    q: view.q || undefined,
    type: view.type,
    from: view.from,
    to: view.to,
    order: view.order === 'desc' ? 'desc' : undefined,
    after: view.after,
    risk: view.risk,
    ...change,
  };
  const query = new URLSearchParams(Object.entries(values).filter((e): e is [string, string] => !!e[1]));
  return `${storePath(storeId, 'claims')}?${query}`;
}

/** The export of a view (D52): its tab, search, type, dates, risk and order, every page of it. */
export function exportHref(storeId: string, view: QueueView): string {
  return queueHref(storeId, view, { after: undefined }).replace(
    `${storePath(storeId, 'claims')}?`,
    `${storePath(storeId, 'claims', 'export')}?`,
  );
}

/** The page of claims a view shows, read with the staff token (D50, D51). */
export async function loadQueue(api: StorePage['api'], view: QueueView): Promise<TClaimConnection> {
  return unwrap(await api.client.claims.list({ query: listQuery(view) }));
}
