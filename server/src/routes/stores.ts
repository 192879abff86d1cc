import type { Contract } from '@protection-service/contract';
import { mintSessionToken } from '../domain/auth/session-tokens';
import { isStoreMember, listInstallations, uninstall } from '../domain/identity/installations';
import { dashboardUserOf } from '../http/caller';
import { notFound } from '../http/errors';
import type { GroupHandlers, RouteContext } from './context';

/**
 * Installations (D14) and session-token minting (D15). A store the user does not belong to
 * answers exactly what a missing store answers (D7: 404, never 403).
 */
export function storeHandlers({ db, config, auth }: RouteContext): GroupHandlers<Contract['stores']> {
  const sessionSettings = { secretKey: config.secretKey, issuer: config.publicBaseUrl };
  return {
    async listInstallations({ params, req }) {
      const { userId } = dashboardUserOf(req);
      if (!(await isStoreMember(db, userId, params.storeId))) throw notFound('store not found');
      return { status: 200, body: { data: await listInstallations(db, params.storeId) } };
    },
    async uninstall({ params, req }) {
      const { userId } = dashboardUserOf(req);
      if (!(await isStoreMember(db, userId, params.storeId))) throw notFound('store not found');
      // D14: one transaction revokes every token of the installation and soft-deletes its
      // context; once it commits, both are announced to every process (public reads fall back, D29).
      if (!(await uninstall(db, params.storeId, params.clientId))) throw notFound('app not installed on this store');
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
      if (!token) throw notFound('app not installed on this store');
      return { status: 200, body: { data: { session_token: token } } };
    },
  };
}
