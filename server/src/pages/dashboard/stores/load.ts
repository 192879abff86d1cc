import { type TClaimConnection, type TClaimQueue, unwrap } from '@protection-service/sdk';
import type { Dashboard, StorePage } from '../handlers';
import type { MemberStore } from '../port';
import type { SignedIn } from '../staff-api';
import { CLAIM_TABS } from '../words';

/** A claim queue's tab (D51), as the home page counts it. */
export type QueueTab = (typeof CLAIM_TABS)[number] & { queue: TClaimQueue };

/** The home page's claims: each tab with its first page (oldest first, up to 50). */
export interface HomeClaims {
  tabs: { tab: QueueTab; page: TClaimConnection }[];
}

/** The stores the person belongs to. */
export function loadStores(dashboard: Dashboard, session: SignedIn): Promise<MemberStore[]> {
  return dashboard.port.storesOf(session.user.id);
}

/** One page of each tab: its count up to a page ("50 or more" beyond), and the oldest to do. */
export async function loadHomeClaims({ api }: Pick<StorePage, 'api'>): Promise<HomeClaims> {
  const tabs = CLAIM_TABS.filter((t): t is QueueTab => t.queue !== undefined);
  const pages = await Promise.all(
    tabs.map(async (t) => unwrap(await api.client.claims.list({ query: { queue: t.queue, first: 50, order: 'asc' } }))),
  );
  return { tabs: tabs.map((tab, i) => ({ tab, page: pages[i]! })) };
}
