import type { TMember } from '@protection-service/sdk';
import { unwrap } from '@protection-service/sdk';
import type { Dashboard, StoreForm } from '../handlers';

/** The members API as the signed-in person, with their own dashboard token (the API checks the role, D53). */
export const membersApi = (dashboard: Dashboard, f: Pick<StoreForm, 'req' | 'session'>) =>
  dashboard.staff.asUser(f.req, f.session).members;

/** The store's members and invitations. */
export async function loadTeam(
  dashboard: Dashboard,
  page: Pick<StoreForm, 'req' | 'session' | 'store'>,
): Promise<TMember[]> {
  return unwrap(await membersApi(dashboard, page).list({ params: { storeId: page.store.id } })).data;
}
