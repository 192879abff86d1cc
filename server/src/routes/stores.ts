import type { Contract } from '@protection-service/contract';
import { listAuditEvents } from '../domain/audit/read';
import { mintSessionToken } from '../domain/auth/session-tokens';
import { mintStaffToken } from '../domain/auth/staff';
import { listInstallations } from '../domain/identity/installations';
import { updateMerchantSettings } from '../domain/partner/settings';
import { uninstall } from '../domain/uninstall/uninstall';
import { dashboardUserOf } from '../http/caller';
import type { GroupHandlers, RouteContext } from './context';

/**
 * Installations (D14), session-token (D15) and staff-token (D49) minting and the merchant's
 * default settings (D53), on the stores the
 * dashboard user belongs to: the domain answers another store exactly as a missing one (D7).
 */
export function storeHandlers({ db, config, auth, pager }: RouteContext): GroupHandlers<Contract['stores']> {
  const sessionSettings = { secretKey: config.secretKey, issuer: config.publicBaseUrl };
  return {
    async listInstallations({ params, req }) {
      const { userId } = dashboardUserOf(req);
      return { status: 200, body: { data: await listInstallations(db, userId, params.storeId) } };
    },
    async uninstall({ params, req }) {
      const { userId } = dashboardUserOf(req);
      // D14: one transaction revokes every token of the installation and soft-deletes its
      // context; once it commits, both are announced to every process (public reads fall back, D29).
      await uninstall(db, userId, params.storeId, params.clientId);
      // D13: this process applies the revocation before it answers.
      await auth.revocations.refresh();
      return { status: 200, body: { data: { ok: true as const } } };
    },
    async mintSessionToken({ params, req }) {
      const { userId } = dashboardUserOf(req);
      const token = await mintSessionToken(db, sessionSettings, {
        userId,
        storeId: params.storeId,
        clientId: params.clientId,
      });
      return { status: 200, body: { data: { session_token: token } } };
    },
    async updateSettings({ params, body, req }) {
      const { userId } = dashboardUserOf(req);
      return { status: 200, body: { data: await updateMerchantSettings(db, userId, params.storeId, body) } };
    },
    async mintStaffToken({ params, req, res }) {
      const data = await mintStaffToken(db, auth.keys, dashboardUserOf(req), params.storeId);
      // RFC 6749 §5.1, as every token answer: no cache keeps it.
      res.setHeader('cache-control', 'no-store');
      return { status: 200, body: { data } };
    },
    async listAuditEvents({ params, query, req }) {
      const { userId } = dashboardUserOf(req);
      return { status: 200, body: { data: await listAuditEvents(db, pager, userId, params.storeId, query) } };
    },
  };
}
