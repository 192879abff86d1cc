import { randomBytes } from 'node:crypto';
import { parseJWT } from '@oslojs/jwt';
import type { Scope, TSessionVerifyResponse } from '@protection-service/contract';
import type { Db } from '../../db/database';
import { deriveKey } from '../../lib/crypto';
import { refuse } from '../../lib/refusal';
import { isStoreMember } from '../identity/installations';
import { signJwt, verifyJwt } from './jwt';

/**
 * Embedded-app session tokens (D15): HS256 JWTs signed with a per-app key derived from the
 * server key, so each app can check its own tokens and no app can forge another's. They
 * live 60 s; verification allows 5 s of clock skew.
 */
const SESSION_TOKEN_TTL_S = 60;
const SESSION_TOKEN_LEEWAY_S = 5;

/** The per-app key: HKDF of the server key for purpose `session-token`, context = client id (D5). */
export function sessionTokenKey(secretKey: Buffer, clientId: string): Buffer {
  return deriveKey(secretKey, 'session-token', clientId);
}

interface SessionTokenSettings {
  secretKey: Buffer;
  /** `iss`: the service's public base URL (D17 issuer). */
  issuer: string;
}

const nowS = () => Math.floor(Date.now() / 1000);

/** A store the user does not belong to answers what a store without the app answers (D7). */
const NOT_INSTALLED = 'app not installed on this store';

/**
 * Mints a session token for the user on the store's active installation of the app (D15).
 * Refused alike (404) when the user is not a member of the store or the app is not installed
 * there.
 */
export async function mintSessionToken(
  db: Db,
  settings: SessionTokenSettings,
  input: { userId: string; storeId: string; clientId: string },
): Promise<string> {
  if (!(await isStoreMember(db, input.userId, input.storeId))) throw refuse.missing(NOT_INSTALLED);
  const installation = await db
    .selectFrom('installations')
    .select('id')
    .where('storeId', '=', input.storeId)
    .where('clientId', '=', input.clientId)
    .where('uninstalledAt', 'is', null)
    .executeTakeFirst();
  if (!installation) throw refuse.missing(NOT_INSTALLED);
  const iat = nowS();
  return signJwt(sessionTokenKey(settings.secretKey, input.clientId), {
    iss: settings.issuer,
    aud: input.clientId,
    sub: input.userId,
    dest: input.storeId,
    sid: installation.id,
    jti: randomBytes(16).toString('base64url'),
    iat,
    nbf: iat,
    exp: iat + SESSION_TOKEN_TTL_S,
  });
}

/** The unverified `aud` of a JWT: only to choose the key the signature is then checked with. */
function claimedAudience(token: string): string | null {
  try {
    const payload = parseJWT(token)[1] as { aud?: unknown } | null;
    return typeof payload?.aud === 'string' && payload.aud.length <= 255 ? payload.aud : null;
  } catch {
    return null;
  }
}

/**
 * Verifies a session token (D15) and answers who is using the embedded app. Every failure is
 * refused alike (401): the caller learns nothing about which check failed.
 */
export async function verifySessionToken(
  db: Db,
  settings: SessionTokenSettings,
  token: string,
): Promise<TSessionVerifyResponse> {
  const session = await sessionOf(db, settings, token);
  if (!session) throw refuse.unauthorized('Unauthorized');
  return session;
}

/**
 * Who a session token names, or null for any failure. Checks, in order: `aud` names a known
 * app; the signature is HS256 with that app's key (`none`, HS512, RS256... refused); issuer;
 * `exp`/`nbf` with 5 s leeway; the installation named by `sid` is active and is the app's
 * installation on the `dest` store; the user still exists and belongs to the store.
 */
async function sessionOf(
  db: Db,
  settings: SessionTokenSettings,
  token: string,
): Promise<TSessionVerifyResponse | null> {
  const aud = claimedAudience(token);
  if (aud === null) return null;
  const app = await db.selectFrom('apps').select('clientId').where('clientId', '=', aud).executeTakeFirst();
  if (!app) return null;
  const claims = verifyJwt(sessionTokenKey(settings.secretKey, app.clientId), token);
  if (!claims || claims.aud !== app.clientId || claims.iss !== settings.issuer) return null;
  const { sub, dest, sid, exp, nbf } = claims;
  if (typeof sub !== 'string' || typeof dest !== 'string' || typeof sid !== 'string') return null;
  if (typeof exp !== 'number' || typeof nbf !== 'number') return null;
  const now = nowS();
  if (now >= exp + SESSION_TOKEN_LEEWAY_S || now < nbf - SESSION_TOKEN_LEEWAY_S) return null;

  const row = await db
    .selectFrom('installations as i')
    .innerJoin('storeMembers as m', (join) => join.onRef('m.storeId', '=', 'i.storeId').on('m.userId', '=', sub))
    .innerJoin('dashboardUsers as u', 'u.id', 'm.userId')
    .select(['i.id', 'i.storeId', 'i.clientId', 'i.scopes', 'u.id as userId', 'u.email', 'u.firstName', 'u.lastName'])
    .where('i.id', '=', sid)
    .where('i.storeId', '=', dest)
    .where('i.clientId', '=', app.clientId)
    .where('i.uninstalledAt', 'is', null)
    .executeTakeFirst();
  if (!row) return null;
  return {
    userId: row.userId,
    email: row.email,
    firstName: row.firstName,
    lastName: row.lastName,
    storeId: row.storeId,
    installationId: row.id,
    applicationId: row.clientId,
    clientId: row.clientId,
    scopes: row.scopes as Scope[],
  };
}
