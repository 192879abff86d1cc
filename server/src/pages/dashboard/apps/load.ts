import type { TInstallation } from '@protection-service/sdk';
import { unwrap } from '@protection-service/sdk';
import type { Dashboard, StorePage } from '../handlers';

/** The apps installed on the store now, read with the person's dashboard token (D14, D49). */
export async function loadApps(
  dashboard: Dashboard,
  { req, session, store }: Pick<StorePage, 'req' | 'session' | 'store'>,
): Promise<TInstallation[]> {
  const user = dashboard.staff.asUser(req, session);
  const { data } = unwrap(await user.stores.listInstallations({ params: { storeId: store.id } }));
  return data.filter((i) => i.uninstalledAt === null);
}
