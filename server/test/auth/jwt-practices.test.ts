import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signJwt, verifyJwt } from '../../src/domain/auth/jwt';
import {
  issueAccessToken,
  issueDashboardToken,
  tokenKeys,
  verifyAccessToken,
  verifyDashboardToken,
} from '../../src/domain/auth/tokens';

const keys = tokenKeys(Buffer.alloc(32, 7), 'https://api.example.com');
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
/** A compact JWT with any header, signed with HMAC-SHA256 or HMAC-SHA512 over the two segments. */
const forge = (header: Record<string, unknown>, payload: Record<string, unknown>, key: Buffer, hash = 'sha256') => {
  const signingInput = `${b64(header)}.${b64(payload)}`;
  return `${signingInput}.${createHmac(hash, key).update(signingInput).digest('base64url')}`;
};
const now = () => Math.floor(Date.now() / 1000);
const accessClaims = () => ({
  iss: keys.issuer,
  aud: 'protection-service:access',
  sub: 'svc_app_1',
  jti: 'j1',
  gid: null,
  iid: 'in_1',
  sid: 'st_1',
  scope: 'order:read',
  iat: now(),
  exp: now() + 60,
});

/**
 * The service's JWTs follow RFC 8725 (JSON Web Token Best Current Practices): one algorithm,
 * checked (§3.1, §3.2); every signature verified before any claim is read (§3.3); keys derived
 * from the 256-bit secret key (§3.5); issuer and audience checked (§3.8, §3.9); nothing taken
 * from the header but `alg` (§3.10); and each kind of token with its own key and audience, so
 * that one kind never passes for another (§3.12).
 */
describe('JWT best current practices (RFC 8725)', () => {
  it('accepts what it issues', () => {
    const { token } = issueAccessToken(keys, {
      grantId: null,
      installationId: 'in_1',
      storeId: 'st_1',
      clientId: 'svc_app_1',
      scopes: ['order:read'],
    });
    expect(verifyAccessToken(keys, token)?.storeId).toBe('st_1');
    expect(
      verifyAccessToken(keys, `svc_at_${forge({ alg: 'HS256', typ: 'JWT' }, accessClaims(), keys.access)}`),
    ).not.toBe(null);
  });

  it('refuses alg none, another algorithm, and an HS256 header over another hash (§3.1, §3.2)', () => {
    const unsigned = `${b64({ alg: 'none', typ: 'JWT' })}.${b64(accessClaims())}.`;
    expect(verifyJwt(keys.access, unsigned)).toBe(null);
    expect(verifyJwt(keys.access, `${unsigned}${'A'.repeat(43)}`)).toBe(null);
    expect(verifyJwt(keys.access, forge({ alg: 'HS512', typ: 'JWT' }, accessClaims(), keys.access, 'sha512'))).toBe(
      null,
    );
    expect(verifyJwt(keys.access, forge({ alg: 'HS384', typ: 'JWT' }, accessClaims(), keys.access))).toBe(null);
    expect(verifyJwt(keys.access, forge({ alg: 'RS256', typ: 'JWT' }, accessClaims(), keys.access))).toBe(null);
  });

  it('refuses a signature by any other key, whatever the header names (§3.3, §3.10)', () => {
    const other = Buffer.alloc(32, 8);
    expect(verifyJwt(keys.access, forge({ alg: 'HS256' }, accessClaims(), other))).toBe(null);
    const withKeyHints = forge({ alg: 'HS256', kid: 'other', jku: 'https://evil.example/keys' }, accessClaims(), other);
    expect(verifyJwt(keys.access, withKeyHints)).toBe(null);
  });

  it('refuses another issuer, another audience and an expired token (§3.8, §3.9)', () => {
    const sign = (overrides: Record<string, unknown>) =>
      `svc_at_${signJwt(keys.access, { ...accessClaims(), ...overrides })}`;
    expect(verifyAccessToken(keys, sign({}))).not.toBe(null);
    expect(verifyAccessToken(keys, sign({ iss: 'https://elsewhere.example.com' }))).toBe(null);
    expect(verifyAccessToken(keys, sign({ aud: 'protection-service:dashboard' }))).toBe(null);
    expect(verifyAccessToken(keys, sign({ exp: now() - 1 }))).toBe(null);
  });

  it('never takes one kind of token for another (§3.12)', () => {
    const dashboard = issueDashboardToken(keys, { grantId: 'gr_1', userId: 'us_1' }).token;
    expect(verifyDashboardToken(keys, dashboard)?.userId).toBe('us_1');
    expect(verifyAccessToken(keys, `svc_at_${dashboard}`)).toBe(null);
    const access = issueAccessToken(keys, {
      grantId: 'gr_1',
      installationId: 'in_1',
      storeId: 'st_1',
      clientId: 'svc_app_1',
      scopes: [],
    }).token;
    expect(verifyDashboardToken(keys, access.slice('svc_at_'.length))).toBe(null);
    // Even a dashboard-shaped payload signed with the access key is no dashboard token.
    const crossSigned = signJwt(keys.access, {
      iss: keys.issuer,
      aud: 'protection-service:dashboard',
      sub: 'us_1',
      jti: 'j',
      gid: 'g',
      iat: now(),
      exp: now() + 60,
    });
    expect(verifyDashboardToken(keys, crossSigned)).toBe(null);
  });
});
