/** The dashboard's addresses (D50), in one place: pages link with these, routes mount them. */

export const DASHBOARD_PATH = '/dashboard';
export const DASHBOARD_SIGN_IN_PATH = '/dashboard/sign-in';
export const DASHBOARD_SIGN_OUT_PATH = '/dashboard/sign-out';

/** A store's page: home without `rest`, else `…/claims`, `…/orders/123` and so on. */
export function storePath(storeId: string, ...rest: string[]): string {
  return [`${DASHBOARD_PATH}/stores/${encodeURIComponent(storeId)}`, ...rest.map(encodeURIComponent)].join('/');
}

export function claimPath(storeId: string, claimId: string): string {
  return storePath(storeId, 'claims', claimId);
}

export function orderPath(storeId: string, sourceOrderId: string): string {
  return storePath(storeId, 'orders', sourceOrderId);
}

/** Where a sign-in may send the browser back to: a dashboard path of this origin, nothing else. */
export function safeNext(next: unknown): string {
  if (typeof next !== 'string' || !next.startsWith(`${DASHBOARD_PATH}/`) || next.startsWith('//'))
    return DASHBOARD_PATH;
  return /^[\w\-./?=&%:+~]*$/.test(next) ? next : DASHBOARD_PATH;
}
