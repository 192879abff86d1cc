import { normalizeScope, type Scope, type TConsentPreview } from '@protection-service/contract';
import type { Db } from '../../db/database';
import { transact } from '../../db/transact';
import { digest, randomCredential } from '../../lib/crypto';
import { refuse } from '../../lib/refusal';
import { recordAudit } from '../audit/record';
import { grantableScopes } from '../identity/apps';
import { findActiveInstallation, isStoreMember, upsertInstallation } from '../identity/installations';
import { findStore, storeLivemode } from '../identity/stores';

/**
 * The install of an app on a store (D10, D40): the consent preview and the approval that
 * issues a single-use authorization code, which the authorization-code grant (oauth.ts)
 * exchanges. No HTTP in here: failures are refusals (lib/refusal.ts).
 */

/** Authorization codes live 10 minutes (D10). */
const AUTHORIZATION_CODE_TTL_S = 600;
/** Codes carry 256 random bits behind this prefix (D5); only their digest is stored. */
const AUTHORIZATION_CODE_PREFIX = 'svc_ac_';

interface InstallRequest {
  userId: string;
  clientId: string;
  redirectUri: string;
  storeId: string;
  scopes?: string[] | undefined;
}

interface InstallPlan {
  preview: TConsentPreview;
  granted: Scope[];
}

/**
 * Everything an install needs checked, in the order a caller may learn it: the app and the
 * store (404 alike when unknown or not the user's), then the redirect URI and the scopes (400).
 * Requested scopes default to the app's registered ones; a known scope that cannot be granted
 * (pricing scopes of a private or unapproved app, or one the app never registered) is
 * withheld rather than refused, so the preview and the approval of the same body agree.
 */
async function planInstall(db: Db, input: InstallRequest): Promise<InstallPlan> {
  const app = await db
    .selectFrom('apps')
    .select(['clientId', 'name', 'distribution', 'pricingApproved', 'requestedScopes', 'redirectUris'])
    .where('clientId', '=', input.clientId)
    .executeTakeFirst();
  if (!app) throw refuse.missing('app not found');
  const store = await findStore(db, { id: input.storeId });
  if (!store || !(await isStoreMember(db, input.userId, store.id))) throw refuse.missing('store not found');
  // D10: exact string match, no normalization, no prefix match.
  if (!app.redirectUris.includes(input.redirectUri)) {
    throw refuse.invalid('redirectUri does not match a registered redirect URI');
  }
  const requested: Scope[] = [];
  for (const name of input.scopes ?? app.requestedScopes) {
    const scope = normalizeScope(name);
    if (!scope) throw refuse.invalid(`unknown scope: ${name}`);
    if (!requested.includes(scope)) requested.push(scope);
  }
  // D45: on a test store the pricing scopes need no approval; the grant stays on that store.
  const testStore = (await storeLivemode(db, store.id)) === false;
  const grantable = new Set(
    grantableScopes({
      ...app,
      pricingApproved: app.pricingApproved || testStore,
      requestedScopes: app.requestedScopes as Scope[],
    }),
  );
  const granted = requested.filter((s) => grantable.has(s));
  const withheld = requested.filter((s) => !grantable.has(s));
  if (granted.length === 0) throw refuse.invalid('none of the requested scopes can be granted');
  const installed = await findActiveInstallation(db, store.id, app.clientId);
  return {
    granted,
    preview: {
      app: { clientId: app.clientId, name: app.name, distribution: app.distribution },
      store: { id: store.id, name: store.name, domain: store.domain },
      redirectUri: input.redirectUri,
      requestedScopes: requested,
      grantableScopes: granted,
      withheldScopes: withheld,
      installedScopes: installed ? installed.scopes : null,
    },
  };
}

/**
 * The app an authorization request names, when `redirectUri` is one of its registered URIs
 * exactly (D10, D40); undefined otherwise. Until this holds, the browser is never sent to the
 * URI (RFC 6749 §4.1.2.1).
 */
export async function authorizationTarget(
  db: Db,
  clientId: string,
  redirectUri: string,
): Promise<{ clientId: string; name: string; requestedScopes: string[] } | undefined> {
  const app = await db
    .selectFrom('apps')
    .select(['clientId', 'name', 'redirectUris', 'requestedScopes'])
    .where('clientId', '=', clientId)
    .executeTakeFirst();
  if (!app?.redirectUris.includes(redirectUri)) return undefined;
  return { clientId: app.clientId, name: app.name, requestedScopes: app.requestedScopes };
}

/** The consent preview (D10): nothing is written. */
export async function previewInstall(db: Db, input: InstallRequest): Promise<TConsentPreview> {
  return (await planInstall(db, input)).preview;
}

/**
 * Approves an install (D10): creates or updates the installation and issues a single-use
 * code valid 10 minutes, stored as a digest with its PKCE challenge. Answers the code and
 * the registered redirect URI with `code` and `state` added (its own query survives).
 */
export async function approveInstall(
  db: Db,
  input: InstallRequest & { state?: string | undefined; codeChallenge?: string | undefined },
): Promise<{ code: string; redirectUri: string }> {
  return transact(db, async (trx) => {
    const { granted } = await planInstall(trx, input);
    const installation = await upsertInstallation(trx, {
      storeId: input.storeId,
      clientId: input.clientId,
      scopes: granted,
      userId: input.userId,
    });
    await recordAudit(trx, {
      store: input.storeId,
      actor: { type: 'user', id: input.userId },
      action: 'app.installed',
      target: { type: 'app', id: input.clientId },
      changes: { scopes: granted },
    });
    const code = randomCredential(AUTHORIZATION_CODE_PREFIX);
    await trx
      .insertInto('authorizationCodes')
      .values({
        codeHash: digest(code),
        clientId: input.clientId,
        storeId: input.storeId,
        userId: input.userId,
        installationId: installation.id,
        redirectUri: input.redirectUri,
        scopes: granted,
        codeChallenge: input.codeChallenge ?? null,
        expiresAt: new Date(Date.now() + AUTHORIZATION_CODE_TTL_S * 1000),
      })
      .execute();
    const url = new URL(input.redirectUri);
    url.searchParams.set('code', code);
    if (input.state !== undefined) url.searchParams.set('state', input.state);
    return { code, redirectUri: url.toString() };
  });
}
