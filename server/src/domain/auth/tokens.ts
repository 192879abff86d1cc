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

export const ACCESS_TOKEN_PREFIX = 'svc_at_';
export const REFRESH_TOKEN_PREFIX = 'svc_rt_';
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

export interface AccessTokenClaims {
  jti: string;
  /** Token family (D12); null for client-credentials tokens, which have none. */
  grantId: string | null;
  installationId: string;
  storeId: string;
  clientId: string;
  scopes: Scope[];
  expiresAt: number;
}

export interface DashboardTokenClaims {
  jti: string;
  grantId: string;
  userId: string;
  expiresAt: number;
}

const nowS = () => Math.floor(Date.now() / 1000);
const newJti = () => randomBytes(16).toString('base64url');

export function issueAccessToken(
  keys: TokenKeys,
  claims: Omit<AccessTokenClaims, 'jti' | 'expiresAt'>,
): { token: string; claims: AccessTokenClaims } {
  const iat = nowS();
  const full: AccessTokenClaims = { ...claims, jti: newJti(), expiresAt: iat + ACCESS_TOKEN_TTL_S };
  const jwt = signJwt(keys.access, {
    iss: keys.issuer,
    aud: AUDIENCE.access,
    sub: claims.clientId,
    jti: full.jti,
    gid: claims.grantId,
    iid: claims.installationId,
    sid: claims.storeId,
    scope: claims.scopes.join(' '),
    iat,
    exp: full.expiresAt,
  });
  return { token: `${ACCESS_TOKEN_PREFIX}${jwt}`, claims: full };
}

/** Verifies signature, audience, issuer and expiry without touching the database. */
export function verifyAccessToken(keys: TokenKeys, token: string): AccessTokenClaims | null {
  if (!token.startsWith(ACCESS_TOKEN_PREFIX)) return null;
  const c = verifyJwt(keys.access, token.slice(ACCESS_TOKEN_PREFIX.length));
  if (!c || c.aud !== AUDIENCE.access || c.iss !== keys.issuer) return null;
  if (typeof c.exp !== 'number' || c.exp <= nowS()) return null;
  if (
    typeof c.jti !== 'string' ||
    typeof c.iid !== 'string' ||
    typeof c.sid !== 'string' ||
    typeof c.sub !== 'string'
  ) {
    return null;
  }
  if (typeof c.scope !== 'string' || (c.gid !== null && typeof c.gid !== 'string')) return null;
  const scopes = c.scope === '' ? [] : c.scope.split(' ');
  if (!scopes.every(isScope)) return null;
  return {
    jti: c.jti,
    grantId: c.gid,
    installationId: c.iid,
    storeId: c.sid,
    clientId: c.sub,
    scopes: scopes as Scope[],
    expiresAt: c.exp,
  };
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
