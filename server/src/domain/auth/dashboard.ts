import { randomBytes } from 'node:crypto';
import { channel } from 'node:diagnostics_channel';
import { verify } from '@node-rs/argon2';
import type { TDashboardTokens, TDashboardUser, TLoginResponse, TPasswordChange } from '@protection-service/contract';
import type { Db } from '../../db/database';
import { transact } from '../../db/transact';
import { digest, randomCredential } from '../../lib/crypto';
import { newId } from '../../lib/ids';
import { refuse } from '../../lib/refusal';
import { recordAudit } from '../audit/record';
import { hashPassword } from '../identity/users';
import { recordSignIn, storesOfUser } from './browser-sessions';
import { revokeFamily, revokeOtherSessions } from './revocations';
import {
  DASHBOARD_REFRESH_PREFIX,
  DASHBOARD_TOKEN_TTL_S,
  type DashboardTokenClaims,
  issueDashboardToken,
  REFRESH_TOKEN_TTL_S,
  type TokenKeys,
} from './tokens';

/**
 * Dashboard login and refresh rotation (D8, D12). Refresh tokens `svc_drt_…` are stored only
 * as SHA-256 digests (D5) under a `grants` row of kind `dashboard`: the token family.
 */

/**
 * An argon2id hash of a random password with the same parameters as real ones, verified when
 * the e-mail is unknown so that both failures cost the same time (D8).
 */
let dummyHash: Promise<string> | undefined;
function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword(randomBytes(18).toString('base64url'));
  return dummyHash;
}

/**
 * Published once per password verification with the algorithm and parameters of the hash it
 * verified against (never the hash or the password): what shows that an unknown e-mail costs
 * the work a wrong password does (D8), the same argon2id verification, without a stopwatch.
 * Free while nothing subscribes.
 */
export const passwordVerifications = channel('protection-service.password-verification');

/** `$argon2id$v=19$m=19456,t=2,p=1$…`: the part before the salt, or '' for a malformed hash. */
const hashParameters = (hash: string) => (hash.split('$').length === 6 ? hash.split('$', 4).join('$') : '');

async function passwordMatches(hash: string, password: string): Promise<boolean> {
  if (passwordVerifications.hasSubscribers) passwordVerifications.publish({ parameters: hashParameters(hash) });
  try {
    return await verify(hash, password);
  } catch {
    // A malformed stored hash is a failed login, never a 500 that tells the user apart.
    return false;
  }
}

async function userView(
  db: Db,
  user: { id: string; email: string; firstName: string | null; lastName: string | null },
): Promise<TDashboardUser> {
  const stores = await storesOfUser(db, user.id);
  return { id: user.id, email: user.email, firstName: user.firstName, lastName: user.lastName, stores };
}

/** A new refresh token of the family, stored as a digest. */
async function insertRefreshToken(trx: Db, grantId: string, now: Date): Promise<string> {
  const token = randomCredential(DASHBOARD_REFRESH_PREFIX);
  await trx
    .insertInto('refreshTokens')
    .values({ tokenHash: digest(token), grantId, expiresAt: new Date(now.getTime() + REFRESH_TOKEN_TTL_S * 1000) })
    .execute();
  return token;
}

function tokensOf(keys: TokenKeys, userId: string, grantId: string, refreshToken: string): TDashboardTokens {
  const access = issueDashboardToken(keys, { userId, grantId });
  return {
    access_token: access.token,
    refresh_token: refreshToken,
    expires_in: DASHBOARD_TOKEN_TTL_S,
    token_type: 'Bearer',
  };
}

/**
 * The dashboard user with this e-mail and password (D8), or null for an unknown e-mail and a
 * wrong password alike, after an argon2id verification either way. The JSON login and the
 * sign-in page (D40) both go through here.
 */
export async function checkCredentials(
  db: Db,
  email: string,
  password: string,
): Promise<{ id: string; email: string; firstName: string | null; lastName: string | null } | null> {
  const user = await db
    .selectFrom('dashboardUsers')
    .select(['id', 'email', 'firstName', 'lastName', 'passwordHash'])
    .where('email', '=', email.trim().toLowerCase())
    .executeTakeFirst();
  const ok = await passwordMatches(user?.passwordHash ?? (await dummyPasswordHash()), password);
  if (!user || !ok) return null;
  return { id: user.id, email: user.email, firstName: user.firstName, lastName: user.lastName };
}

/** One message for an unknown e-mail and a wrong password alike (D8). */
const LOGIN_FAILED = 'invalid e-mail or password';

/**
 * Logs a dashboard user in (D8). An unknown e-mail and a wrong password are refused alike
 * (401), after an argon2id verification either way.
 */
export async function login(db: Db, keys: TokenKeys, email: string, password: string): Promise<TLoginResponse> {
  const user = await checkCredentials(db, email, password);
  if (!user) throw refuse.unauthorized(LOGIN_FAILED);
  const grantId = newId('gr');
  const refreshToken = await transact(db, async (trx) => {
    await trx.insertInto('grants').values({ id: grantId, kind: 'dashboard', userId: user.id }).execute();
    await recordSignIn(trx, user.id);
    return insertRefreshToken(trx, grantId, new Date());
  });
  return { ...tokensOf(keys, user.id, grantId, refreshToken), user: await userView(db, user) };
}

/** Unknown, expired, revoked or replayed: one answer (D12). */
const REFRESH_REFUSED = 'invalid, expired or revoked refresh token';

/**
 * Rotates a dashboard refresh token (D8 like D12): retires it and answers new tokens of the
 * same family. An unknown, expired or revoked token is refused (401). A retired token
 * presented again revokes the family and is refused: the caller applies that revocation
 * before it answers. Of two concurrent refreshes with one token exactly one wins: the
 * retiring UPDATE is conditional on `retired_at IS NULL`, and the loser, finding it retired,
 * is treated as a replay.
 */
export async function refresh(db: Db, keys: TokenKeys, presented: string): Promise<TDashboardTokens> {
  if (!presented.startsWith(DASHBOARD_REFRESH_PREFIX)) throw refuse.unauthorized(REFRESH_REFUSED);
  const tokenHash = digest(presented);
  const rotated = await transact(db, async (trx) => {
    const now = new Date();
    const retired = await trx
      .updateTable('refreshTokens')
      .set({ retiredAt: now })
      .where('tokenHash', '=', tokenHash)
      .where('retiredAt', 'is', null)
      .where('expiresAt', '>', now)
      .where((eb) =>
        eb.exists(
          eb
            .selectFrom('grants')
            .select('grants.id')
            .whereRef('grants.id', '=', 'refreshTokens.grantId')
            .where('grants.kind', '=', 'dashboard')
            .where('grants.revokedAt', 'is', null),
        ),
      )
      .returning('grantId')
      .executeTakeFirst();
    if (!retired) return null;
    const grant = await trx
      .selectFrom('grants')
      .select(['userId'])
      .where('id', '=', retired.grantId)
      .executeTakeFirstOrThrow();
    if (!grant.userId) return null;
    const refreshToken = await insertRefreshToken(trx, retired.grantId, now);
    return { userId: grant.userId, grantId: retired.grantId, refreshToken };
  });
  if (rotated) return tokensOf(keys, rotated.userId, rotated.grantId, rotated.refreshToken);

  // Not usable. A retired token of a dashboard family presented again is a replay (D12).
  await transact(db, async (trx) => {
    const known = await trx
      .selectFrom('refreshTokens as r')
      .innerJoin('grants as g', 'g.id', 'r.grantId')
      .select(['r.grantId'])
      .where('r.tokenHash', '=', tokenHash)
      .where('r.retiredAt', 'is not', null)
      .where('g.kind', '=', 'dashboard')
      .where('g.revokedAt', 'is', null)
      .executeTakeFirst();
    if (known) await revokeFamily(trx, known.grantId, 'refresh token reuse');
  });
  throw refuse.unauthorized(REFRESH_REFUSED);
}

/**
 * `POST /v1/auth/password` (D49): checks the current password, stores the new one (argon2id),
 * and ends every other session of the user (their dashboard, refresh and staff tokens) in the
 * same transaction; the session that asks stays. A wrong current password answers 400 and
 * changes nothing. The caller applies the revocations before it answers.
 */
export async function changePassword(
  db: Db,
  session: Pick<DashboardTokenClaims, 'userId' | 'grantId'>,
  change: TPasswordChange,
): Promise<void> {
  const user = await db
    .selectFrom('dashboardUsers')
    .select('passwordHash')
    .where('id', '=', session.userId)
    .executeTakeFirst();
  if (!user) throw refuse.unauthorized('invalid, expired or revoked dashboard token');
  if (!(await passwordMatches(user.passwordHash, change.currentPassword))) {
    throw refuse.invalidAt('body.currentPassword', 'is not the current password');
  }
  const passwordHash = await hashPassword(change.newPassword);
  await transact(db, async (trx) => {
    // Only if nobody changed it meanwhile: of two concurrent changes, the second is refused.
    const changed = await trx
      .updateTable('dashboardUsers')
      .set({ passwordHash })
      .where('id', '=', session.userId)
      .where('passwordHash', '=', user.passwordHash)
      .executeTakeFirst();
    if (changed.numUpdatedRows === 0n) throw refuse.conflict('the password was changed meanwhile: try again');
    await revokeOtherSessions(trx, session.userId, session.grantId, 'password changed');
    // D53: never the password itself, only that it changed.
    await recordAudit(trx, {
      store: { memberOf: session.userId },
      actor: { type: 'user', id: session.userId },
      action: 'user.password_changed',
      target: { type: 'user', id: session.userId },
    });
  });
}
