import {
  type Client,
  ProtectionApiError,
  type TMerchantSettings,
  type TTrackingSettings,
  type TTrackingSettingsUpdate,
  type TTrackingSource,
  type TTrackingSourceCreated,
  unwrap,
} from '@protection-service/sdk';
import { manages } from '../frame';
import type { Dashboard, StorePage } from '../handlers';

/** What a tracking form's answer adds to the section: what was typed and refused, a source just made. */
export interface TrackingExtras {
  typed?: TTrackingSettingsUpdate;
  rulesError?: string;
  sourceError?: string;
  /** The provider chosen in a refused "Add source" (a secret typed is never written back). */
  provider?: string;
  /** A source just registered; its secret only when the service made it (the person's own is not repeated). */
  created?: TTrackingSourceCreated;
}

/** The section as read from the API, with what a form's answer adds. */
export interface TrackingView extends TrackingExtras {
  settings: TTrackingSettings;
  sources: TTrackingSource[];
}

/** The API as the signed-in person, with their own dashboard token: the routes that check the role themselves (D49, D53). */
export const userApi = (dashboard: Dashboard, page: Pick<StorePage, 'req' | 'session'>): Client =>
  dashboard.staff.asUser(page.req, page.session);

/**
 * The page, read afresh: the defaults with the staff token, and for an owner or admin the
 * tracking section (D54) with their own dashboard token (the API refuses it to other roles),
 * with what a tracking form's answer adds.
 */
export async function loadSettings(
  dashboard: Dashboard,
  page: StorePage,
  extras?: TrackingExtras,
): Promise<{ settings: TMerchantSettings; tracking: TrackingView | undefined }> {
  const { data } = unwrap(await page.api.client.settings.get());
  const tracking = manages(page.store)
    ? await readTracking(userApi(dashboard, page), page.store.id, extras)
    : undefined;
  return { settings: data, tracking };
}

/**
 * The store's tracking rules and sources (D54) as an owner or admin reads them: routes of the
 * person's own dashboard token, which check the role themselves (D49, D53).
 */
async function readTracking(user: Client, storeId: string, extras: TrackingExtras = {}): Promise<TrackingView> {
  const params = { storeId };
  const [settings, sources] = await Promise.all([
    user.tracking.getSettings({ params }),
    user.tracking.listSources({ params }),
  ]);
  return { ...extras, settings: unwrap(settings).data, sources: unwrap(sources).data };
}

/** The API's message when it refused the input (400); any other refusal goes on to the frame. */
export function inputRefused(answer: { status: number; body: unknown; headers: Headers }): string | undefined {
  try {
    unwrap(answer);
    return undefined;
  } catch (err) {
    if (err instanceof ProtectionApiError && err.status === 400) return err.body.message;
    throw err;
  }
}
