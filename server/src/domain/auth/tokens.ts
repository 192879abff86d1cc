import { randomBytes } from 'node:crypto';
import { isScope, type Scope } from '@protection-service/contract';
import { deriveKey } from '../../lib/crypto';
import { signJwt, verifyJwt } from './jwt';

/** Spec: access tokens live 3600 s. */
export const ACCESS_TOKEN_TTL_S = 3600;
/** Dashboard sessions are short; the refresh token (D8, rotating like D12) extends them. */
export const DASHBOARD_TOKEN_TTL_S = 900;
/** Refresh tokens are long-lived (spec) but not eternal. */
export const REFRESH_TOKEN_TTL_S = 90 * 24 * 3600;

const ACCESS_TOKEN_PREFIX = 'svc_at_';
export const REFRESH_TOKEN_PREFIX = 'svc_rt_';
/** D45: the tokens of test stores; they start with the live prefixes too, so mode is read first. */
const TEST_ACCESS_TOKEN_PREFIX = 'svc_at_test_';
const TEST_REFRESH_TOKEN_PREFIX = 'svc_rt_test_';

/** D45: the refresh token prefix of a mode. */
export const refreshTokenPrefix = (livemode: boolean) => (livemode ? REFRESH_TOKEN_PREFIX : TEST_REFRESH_TOKEN_PREFIX);
export const DASHBOARD_REFRESH_PREFIX = 'svc_drt_';

/** Each kind has its own key and audience: one kind never verifies as another (D16). */
const AUDIENCE = { access: 'protection-service:access', dashboard: 'protection-service:dashboard' } as const;

export interface TokenKeys {
  issuer: string;
  access: Buffer;
  dashboard: Buffer;
}

export function tokenKeys(secretKey: Buffer, issuer: string): TokenKeys {
  return { issuer, access: deriveKey(secretKey, 'access-token'), dashboard: deriveKey(secretKey, 'dashboard-token') };
}

interface AccessTokenCommon {
  jti: string;
  storeId: string;
  scopes: Scope[];
  expiresAt: number;
  /** D45: false for a token of a test store (`svc_at_test_`, claim `lm: false`). */
  livemode: boolean;
}

/** An installed app's token (D11): bound to the installation. */
export interface AppTokenClaims extends AccessTokenCommon {
  kind: 'app';
  /** Token family (D12); null for client-credentials tokens, which have none. */
  grantId: string | null;
  installationId: string;
  clientId: string;
}

/**
 * A staff token (D49): bound to a store member, their dashboard session (`grantId`, so signing
 * out ends it) and the membership's current staff grant (`memberGrantId`, replaced on a role
 * change, so the old role's tokens end).
 */
export interface StaffTokenClaims extends AccessTokenCommon {
  kind: 'staff';
  grantId: string;
  userId: string;
  memberGrantId: string;
}

export type AccessTokenClaims = AppTokenClaims | StaffTokenClaims;

export interface DashboardTokenClaims {
  jti: string;
  grantId: string;
  userId: string;
  expiresAt: number;
}

const nowS = () => Math.floor(Date.now() / 1000);
const newJti = () => randomBytes(16).toString('base64url');

/** D49: a staff token lives 5 minutes; it is minted again from the dashboard session. */
export const STAFF_TOKEN_TTL_S = 300;

/**
 * Issues an access token. `livemode` defaults to true; a test store's token (D45) starts
 * `svc_at_test_` and carries `lm: false` inside its signature, so the prefix cannot be
 * changed without the token failing verification. An app's token names its client (`sub`) and
 * installation (`iid`); a staff token (D49) names its user (`sub`), `stf: true` and the
 * membership's staff grant (`mid`), and has no installation.
 */
export function issueAccessToken(
  keys: TokenKeys,
  claims:
    | (Omit<AppTokenClaims, 'jti' | 'expiresAt' | 'livemode' | 'kind'> & { kind?: 'app'; livemode?: boolean })
    | (Omit<StaffTokenClaims, 'jti' | 'expiresAt' | 'livemode'> & { livemode?: boolean }),
): { token: string; claims: AccessTokenClaims } {
  const iat = nowS();
  const livemode = claims.livemode ?? true;
  const ttl = claims.kind === 'staff' ? STAFF_TOKEN_TTL_S : ACCESS_TOKEN_TTL_S;
  const common = { jti: newJti(), expiresAt: iat + ttl, livemode };
  const full: AccessTokenClaims =
    claims.kind === 'staff' ? { ...claims, ...common } : { ...claims, kind: 'app', ...common };
  const jwt = signJwt(keys.access, {
    iss: keys.issuer,
    aud: AUDIENCE.access,
    jti: full.jti,
    gid: full.grantId,
    ...(full.kind === 'staff'
      ? { sub: full.userId, stf: true, mid: full.memberGrantId }
      : { sub: full.clientId, iid: full.installationId }),
    sid: full.storeId,
    scope: full.scopes.join(' '),
    ...(livemode ? {} : { lm: false }),
    iat,
    exp: full.expiresAt,
  });
  return { token: `${livemode ? ACCESS_TOKEN_PREFIX : TEST_ACCESS_TOKEN_PREFIX}${jwt}`, claims: full };
}

/** Verifies signature, audience, issuer and expiry without touching the database. */
export function verifyAccessToken(keys: TokenKeys, token: string): AccessTokenClaims | null {
  if (!token.startsWith(ACCESS_TOKEN_PREFIX)) return null;
  const livemode = !token.startsWith(TEST_ACCESS_TOKEN_PREFIX);
  const c = verifyJwt(keys.access, token.slice((livemode ? ACCESS_TOKEN_PREFIX : TEST_ACCESS_TOKEN_PREFIX).length));
  if (!c || c.aud !== AUDIENCE.access || c.iss !== keys.issuer) return null;
  // D45: the signed mode must be the prefix's (a live token has no `lm`).
  if ((c.lm === false) === livemode || (c.lm !== undefined && c.lm !== false)) return null;
  if (typeof c.exp !== 'number' || c.exp <= nowS()) return null;
  if (typeof c.jti !== 'string' || typeof c.sid !== 'string' || typeof c.sub !== 'string') return null;
  if (typeof c.scope !== 'string') return null;
  const scopes = c.scope === '' ? [] : c.scope.split(' ');
  if (!scopes.every(isScope)) return null;
  const common = { jti: c.jti, storeId: c.sid, scopes: scopes as Scope[], expiresAt: c.exp, livemode };
  // D49: a staff token has its user, session and membership grant, and no installation.
  if (c.stf === true) {
    if (typeof c.gid !== 'string' || typeof c.mid !== 'string' || c.iid !== undefined) return null;
    return { kind: 'staff', ...common, grantId: c.gid, userId: c.sub, memberGrantId: c.mid };
  }
  if (c.stf !== undefined || typeof c.iid !== 'string' || (c.gid !== null && typeof c.gid !== 'string')) return null;
  return { kind: 'app', ...common, grantId: c.gid, installationId: c.iid, clientId: c.sub };
}

export function issueDashboardToken(
  keys: TokenKeys,
  claims: Omit<DashboardTokenClaims, 'jti' | 'expiresAt'>,
): { token: string; claims: DashboardTokenClaims } {
  const iat = nowS();
  const full: DashboardTokenClaims = { ...claims, jti: newJti(), expiresAt: iat + DASHBOARD_TOKEN_TTL_S };
  const token = signJwt(keys.dashboard, {
    iss: keys.issuer,
    aud: AUDIENCE.dashboard,
    sub: claims.userId,
    jti: full.jti,
    gid: claims.grantId,
    iat,
    exp: full.expiresAt,
  });
  return { token, claims: full };
}

export function verifyDashboardToken(keys: TokenKeys, token: string): DashboardTokenClaims | null {
  const c = verifyJwt(keys.dashboard, token);
  if (!c || c.aud !== AUDIENCE.dashboard || c.iss !== keys.issuer) return null;
  if (typeof c.exp !== 'number' || c.exp <= nowS()) return null;
  if (typeof c.jti !== 'string' || typeof c.sub !== 'string' || typeof c.gid !== 'string') return null;
  return { jti: c.jti, grantId: c.gid, userId: c.sub, expiresAt: c.exp };
}
