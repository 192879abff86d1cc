import { createHash, timingSafeEqual } from 'node:crypto';
import { normalizeScope, type Scope } from '@protection-service/contract';
import type { Db } from '../../db/database';
import { transact } from '../../db/transact';
import { digest, randomCredential } from '../../lib/crypto';
import { newId } from '../../lib/ids';
import { refuse } from '../../lib/refusal';
import type { AuthenticatedClient } from '../identity/apps';
import { findActiveInstallation } from '../identity/installations';
import { storeLivemode } from '../identity/stores';
import { recordRevocation, revokeFamily } from './revocations';
import {
  issueAccessToken,
  REFRESH_TOKEN_PREFIX,
  REFRESH_TOKEN_TTL_S,
  refreshTokenPrefix,
  type TokenKeys,
  verifyAccessToken,
} from './tokens';

/**
 * The OAuth 2.0 grants (RFC 6749, RFC 7636, D10-D13): the authorization-code, refresh-token
 * and client-credentials grants, and revocation (RFC 7009). The install that issues the codes
 * (consent and approval, D10) is install.ts. No HTTP in here: failures are refusals
 * (lib/refusal.ts), with their RFC 6749 code on the token and revoke paths, which
 * http/errors.ts turns into answers. No message ever carries a secret, code or token.
 */

export interface TokenSet {
  accessToken: string;
  refreshToken?: string;
  scopes: Scope[];
}

// ---------------------------------------------------------------------------------------------
// Token grants (D11, D12).

/** BASE64URL(SHA-256(verifier)) without padding (RFC 7636 §4.2, S256). */
function s256Challenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

function sameString(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Requested scopes, normalized (D16); undefined when none were asked for. Unknown names
 * and names outside `allowed` are `invalid_scope` (RFC 6749 §5.2).
 */
function narrowScopes(names: string[] | undefined, allowed: readonly Scope[]): Scope[] | undefined {
  if (names === undefined) return undefined;
  const out: Scope[] = [];
  for (const name of names) {
    const scope = normalizeScope(name);
    if (!scope) throw refuse.oauth('invalid_scope', `unknown scope: ${name}`);
    if (!allowed.includes(scope)) throw refuse.oauth('invalid_scope', `scope not granted: ${scope}`);
    if (!out.includes(scope)) out.push(scope);
  }
  if (out.length === 0) throw refuse.oauth('invalid_scope', 'no scope requested');
  return out;
}

/**
 * Revokes a token family (D10, D12, D13) in its own transaction: the grant, its refresh
 * tokens, and (through the feed) every access token carrying its id. Used for a replayed
 * code or refresh token, so it must commit even though the request itself fails.
 */
async function revokeGrant(db: Db, grantId: string, reason: string): Promise<void> {
  await transact(db, (trx) => revokeFamily(trx, grantId, reason));
}

/**
 * D45: a client secret works only on stores of its mode (the test secret on the app's test
 * stores, the live secret on live ones); used in the other mode it is `invalid_client`. A
 * missing store is left to the grant's own check. Answers the store's mode.
 */
async function checkClientMode(db: Db, client: AuthenticatedClient, storeId: string): Promise<boolean> {
  const livemode = await storeLivemode(db, storeId);
  if (livemode !== undefined && livemode !== client.livemode) {
    throw refuse.oauth(
      'invalid_client',
      client.livemode
        ? 'the live client secret does not work on a test store'
        : 'the test client secret works only on test stores',
    );
  }
  return livemode ?? client.livemode;
}

async function storeRefreshToken(
  trx: Db,
  grantId: string,
  scopes: readonly Scope[],
  livemode: boolean,
): Promise<string> {
  const token = randomCredential(refreshTokenPrefix(livemode));
  await trx
    .insertInto('refreshTokens')
    .values({
      tokenHash: digest(token),
      grantId,
      scopes: [...scopes],
      expiresAt: new Date(Date.now() + REFRESH_TOKEN_TTL_S * 1000),
    })
    .execute();
  return token;
}

/**
 * authorization_code grant (RFC 6749 §4.1.3, RFC 7636 §4.6, D10, D11). The code is taken
 * with one atomic UPDATE (`used_at IS NULL`), so of two concurrent exchanges exactly one gets
 * the row. A failed check rolls the taking back: a wrong redirect URI or verifier does not burn
 * the code. A code that was already used is a replay: `invalid_grant`, and the grant it
 * minted is revoked (RFC 6749 §4.1.2, D10).
 *
 * PKCE: a stored challenge needs a verifier hashing to it; a verifier for a code issued
 * without a challenge is `invalid_grant` too (D11: it is a mismatch with the grant, not a
 * malformed request). The verifier's syntax (43-128 unreserved characters) is checked by the
 * contract, so a malformed one is `invalid_request`.
 */
export async function exchangeAuthorizationCode(
  db: Db,
  keys: TokenKeys,
  client: AuthenticatedClient,
  input: { code: string; redirectUri: string; codeVerifier?: string | undefined },
): Promise<TokenSet> {
  const codeHash = digest(input.code);
  const result = await transact(db, async (trx) => {
    const code = await trx
      .updateTable('authorizationCodes')
      .set({ usedAt: new Date() })
      .where('codeHash', '=', codeHash)
      .where('usedAt', 'is', null)
      .returningAll()
      .executeTakeFirst();
    if (!code) return { replayed: true as const };
    if (code.clientId !== client.clientId) throw refuse.oauth('invalid_grant', 'code was issued to another client');
    const livemode = await checkClientMode(trx, client, code.storeId);
    if (code.expiresAt.getTime() <= Date.now()) throw refuse.oauth('invalid_grant', 'code expired');
    if (code.redirectUri !== input.redirectUri) {
      throw refuse.oauth('invalid_grant', 'redirect_uri does not match the one used at authorization');
    }
    if (code.codeChallenge !== null) {
      if (input.codeVerifier === undefined) throw refuse.oauth('invalid_grant', 'code_verifier required');
      if (!sameString(s256Challenge(input.codeVerifier), code.codeChallenge)) {
        throw refuse.oauth('invalid_grant', 'code_verifier does not match the code challenge');
      }
    } else if (input.codeVerifier !== undefined) {
      throw refuse.oauth('invalid_grant', 'code_verifier sent for a code issued without a code challenge');
    }
    const installation = await trx
      .selectFrom('installations')
      .select(['id', 'scopes'])
      .where('id', '=', code.installationId)
      .where('uninstalledAt', 'is', null)
      .executeTakeFirst();
    if (!installation) throw refuse.oauth('invalid_grant', 'the app is no longer installed on the store');
    // A later approval may have narrowed the installation since the code was issued.
    const scopes = (code.scopes as Scope[]).filter((s) => installation.scopes.includes(s));
    const grantId = newId('gr');
    await trx
      .insertInto('grants')
      .values({
        id: grantId,
        kind: 'oauth',
        clientId: client.clientId,
        storeId: code.storeId,
        installationId: installation.id,
        userId: code.userId,
        scopes,
      })
      .execute();
    await trx.updateTable('authorizationCodes').set({ grantId }).where('codeHash', '=', codeHash).execute();
    const refreshToken = await storeRefreshToken(trx, grantId, scopes, livemode);
    const access = issueAccessToken(keys, {
      grantId,
      installationId: installation.id,
      storeId: code.storeId,
      clientId: client.clientId,
      scopes,
      livemode,
    });
    return { replayed: false as const, tokens: { accessToken: access.token, refreshToken, scopes } };
  });
  if (!result.replayed) return result.tokens;
  const used = await db
    .selectFrom('authorizationCodes')
    .select(['clientId', 'grantId'])
    .where('codeHash', '=', codeHash)
    .executeTakeFirst();
  // Only the client the code was issued to can burn its tokens; anyone else learns nothing.
  if (used?.grantId && used.clientId === client.clientId) await revokeGrant(db, used.grantId, 'code reused');
  throw refuse.oauth('invalid_grant', 'invalid, expired or already used code');
}

/**
 * refresh_token grant with rotation (RFC 6749 §6, D12). The presented token is retired with
 * one atomic UPDATE (`retired_at IS NULL`): of two concurrent refreshes exactly one wins. A
 * retired token presented again by its client revokes the whole family. Requested scopes
 * may narrow the access token, never widen it (`invalid_scope`); the new refresh token keeps
 * the scopes of the old one (RFC 6749 §6).
 */
export async function refreshTokens(
  db: Db,
  keys: TokenKeys,
  client: AuthenticatedClient,
  input: { refreshToken: string; scopes?: string[] | undefined },
): Promise<TokenSet> {
  if (!input.refreshToken.startsWith(REFRESH_TOKEN_PREFIX)) {
    throw refuse.oauth('invalid_grant', 'invalid, expired or revoked refresh token');
  }
  const tokenHash = digest(input.refreshToken);
  const result = await transact(db, async (trx) => {
    const old = await trx
      .updateTable('refreshTokens')
      .set({ retiredAt: new Date() })
      .where('tokenHash', '=', tokenHash)
      .where('retiredAt', 'is', null)
      .returning(['grantId', 'scopes', 'expiresAt'])
      .executeTakeFirst();
    if (!old) return { replayed: true as const };
    const grant = await trx
      .selectFrom('grants')
      .select(['id', 'kind', 'clientId', 'storeId', 'installationId', 'revokedAt'])
      .where('id', '=', old.grantId)
      .executeTakeFirst();
    // Another client's token, a dashboard token or a revoked family: refused, and left as it was.
    if (!grant || grant.kind !== 'oauth' || grant.clientId !== client.clientId || grant.revokedAt !== null) {
      throw refuse.oauth('invalid_grant', 'invalid, expired or revoked refresh token');
    }
    if (old.expiresAt.getTime() <= Date.now()) {
      throw refuse.oauth('invalid_grant', 'invalid, expired or revoked refresh token');
    }
    const installation = grant.installationId
      ? await trx
          .selectFrom('installations')
          .select(['id', 'storeId', 'scopes'])
          .where('id', '=', grant.installationId)
          .where('uninstalledAt', 'is', null)
          .executeTakeFirst()
      : undefined;
    if (!installation) throw refuse.oauth('invalid_grant', 'the app is no longer installed on the store');
    const livemode = await checkClientMode(trx, client, installation.storeId);
    const held = old.scopes as Scope[];
    const scopes = (narrowScopes(input.scopes, held) ?? held).filter((s) => installation.scopes.includes(s));
    const refreshToken = await storeRefreshToken(trx, grant.id, held, livemode);
    const access = issueAccessToken(keys, {
      grantId: grant.id,
      installationId: installation.id,
      storeId: installation.storeId,
      clientId: client.clientId,
      scopes,
      livemode,
    });
    return { replayed: false as const, tokens: { accessToken: access.token, refreshToken, scopes } };
  });
  if (!result.replayed) return result.tokens;
  const retired = await db
    .selectFrom('refreshTokens as r')
    .innerJoin('grants as g', 'g.id', 'r.grantId')
    .select(['g.id', 'g.kind', 'g.clientId'])
    .where('r.tokenHash', '=', tokenHash)
    .executeTakeFirst();
  if (retired && retired.kind === 'oauth' && retired.clientId === client.clientId) {
    await revokeGrant(db, retired.id, 'refresh token reused');
  }
  throw refuse.oauth('invalid_grant', 'invalid, expired or revoked refresh token');
}

/**
 * client_credentials grant (RFC 6749 §4.4, spec, D11): needs an active installation of the
 * app on the store, whose scopes the requested ones must be a subset of. No refresh token and
 * no token family (grantId null); the installation revocation covers these tokens.
 */
export async function clientCredentialsToken(
  db: Db,
  keys: TokenKeys,
  client: AuthenticatedClient,
  input: { storeId: string; scopes?: string[] | undefined },
): Promise<TokenSet> {
  const livemode = await checkClientMode(db, client, input.storeId);
  const installation = await findActiveInstallation(db, input.storeId, client.clientId);
  if (!installation) throw refuse.oauth('invalid_grant', 'the app is not installed on this store');
  const scopes = narrowScopes(input.scopes, installation.scopes) ?? installation.scopes;
  const access = issueAccessToken(keys, {
    grantId: null,
    installationId: installation.id,
    storeId: input.storeId,
    clientId: client.clientId,
    scopes,
    livemode,
  });
  return { accessToken: access.token, scopes };
}

// ---------------------------------------------------------------------------------------------
// Revocation (RFC 7009, D13).

/**
 * Revokes a token of `client` (RFC 7009 §2.1). The token's own prefix decides its kind; the
 * hint is only a hint. A refresh token revokes its whole family, access tokens included; an
 * access token is revoked by its jti until it would have expired. Unknown tokens and other
 * clients' tokens change nothing, and the caller answers 200 either way (§2.2).
 */
export async function revokeToken(db: Db, keys: TokenKeys, client: AuthenticatedClient, token: string): Promise<void> {
  if (token.startsWith(REFRESH_TOKEN_PREFIX)) {
    const row = await db
      .selectFrom('refreshTokens as r')
      .innerJoin('grants as g', 'g.id', 'r.grantId')
      .select(['g.id', 'g.kind', 'g.clientId'])
      .where('r.tokenHash', '=', digest(token))
      .executeTakeFirst();
    if (row && row.kind === 'oauth' && row.clientId === client.clientId) await revokeGrant(db, row.id, 'revoked');
    return;
  }
  const claims = verifyAccessToken(keys, token);
  // A staff token (D49) is no client's: like a token of another client, it is left as it is.
  if (claims?.kind === 'app' && claims.clientId === client.clientId) {
    await recordRevocation(db, 'token', claims.jti, new Date(claims.expiresAt * 1000));
  }
}
