import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  API_VERSIONS,
  type ApiVersion,
  acceptedFamilyScopes,
  changesFor,
  contract,
  contractFor,
  familyScopes,
  isRouteMeta,
  LATEST_API_VERSION,
  ROLE_SCOPES,
  type Role,
  type RouteMeta,
  SCOPE_ALIASES,
  SCOPES,
  type Scope,
} from '@protection-service/contract';
import type { AppRoute } from '@ts-rest/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signJwt } from '../../src/domain/auth/jwt';
import { recordRevocation } from '../../src/domain/auth/revocations';
import { removeMember } from '../../src/domain/auth/staff';
import { tokenKeys } from '../../src/domain/auth/tokens';
import { createUser } from '../../src/domain/identity/users';
import { TEST_STORES_ONLY } from '../../src/http/auth';
import { APP_ONLY } from '../../src/http/caller';
import {
  bearer,
  createApp,
  createOwner,
  createTestStoreOf,
  dashboardTokenFor,
  installWithToken,
  type Owner,
} from '../harness/fixtures';
import { startTestServer, type TestServer } from '../harness/server';

/**
 * The shared security suite (D7, D13, D16, RFC 6750): every token route of routes.tsv and
 * every dashboard route, against missing, malformed, expired, revoked, wrong-kind and
 * under-scoped credentials. The token routes run in every dated version (D44), each with its
 * own routes (2025-01-01 has `PUT /v2/settings`) and its own 403 wording.
 */
const TSV = path.resolve(import.meta.dirname, '../../../docs/routes.tsv');
const tsvRows = readFileSync(TSV, 'utf8')
  .trim()
  .split('\n')
  .slice(1)
  .map((l) => l.split('\t'));

const routes = Object.values(contract as unknown as Record<string, Record<string, AppRoute>>).flatMap((g) =>
  Object.values(g),
);
const metaOf = (r: AppRoute) => {
  if (!isRouteMeta(r.metadata)) throw new Error(`${r.path} has no metadata`);
  return r.metadata as RouteMeta;
};
const tokenRoutes = routes.filter((r) => metaOf(r).auth === 'token');
/** The token routes of one version's contract. */
const tokenRoutesOf = (version: ApiVersion) =>
  Object.values(contractFor(version).router)
    .flatMap((g) => Object.values(g))
    .filter((r) => metaOf(r).auth === 'token');
/** D16 reversed: the earlier name a 2025-01-01 403 message gives a scope, where it has one. */
const EARLIER = new Map(Object.entries(SCOPE_ALIASES).flatMap(([old, later]) => (later ? [[later, old]] : [])));
/** Whether `version` is one a named change (D44) separates from the newest. */
const changedBy = (version: ApiVersion, id: string) => changesFor(version).some((c) => c.id === id);
const named = (version: ApiVersion, scope: Scope) =>
  changedBy(version, 'earlier-scope-names') ? (EARLIER.get(scope) ?? scope) : scope;
const dashboardRoutes = routes.filter((r) => metaOf(r).auth === 'dashboard');

/** Whether a token holding `held` passes a route's scope rule (D16), for a body without store-credit fields. */
function satisfies(meta: RouteMeta, held: readonly Scope[]): boolean {
  const rule = meta.scopes;
  switch (rule.kind) {
    case 'none':
      return true;
    case 'anyOf':
      return rule.scopes.some((s) => held.includes(s));
    case 'conditional':
      return held.includes(rule.base);
    case 'perType':
      return (
        (!rule.requires || held.includes(rule.requires)) &&
        acceptedFamilyScopes(rule.family, rule.action).some((s) => held.includes(s))
      );
  }
}

/** Scopes that satisfy a route's rule, and the ones a token must lack to fail it. */
function scopesFor(meta: RouteMeta): { enough: Scope[]; forbidden: Scope[] } {
  const rule = meta.scopes;
  switch (rule.kind) {
    case 'anyOf':
      return { enough: [rule.scopes[0]!], forbidden: [...rule.scopes] };
    case 'conditional':
      return { enough: [rule.base], forbidden: [rule.base] };
    case 'perType': {
      const family = acceptedFamilyScopes(rule.family, rule.action);
      return {
        enough: [...(rule.requires ? [rule.requires] : []), ...familyScopes(rule.family, rule.action)],
        forbidden: family,
      };
    }
    case 'none':
      return { enough: [], forbidden: [] };
  }
}

const label = (r: AppRoute) => `${r.method} ${r.path}`;
const urlOf = (r: AppRoute) => r.path.replace(/:(\w+)/g, 'sec-$1');

describe('security suite', () => {
  let server: TestServer;
  let owner: Owner;
  beforeAll(async () => {
    server = await startTestServer();
    owner = await createOwner(server.db, 'sec');
  });

  /** A token of a newly installed app, so revoking or uninstalling one never touches another. */
  const freshToken = async (scopes: Scope[], storeId = owner.store.id) => {
    const app = await createApp(server, owner.user.id, { requestedScopes: [...SCOPES], distribution: 'public' });
    return { clientId: app.clientId, ...(await installWithToken(server, app.clientId, storeId, scopes)) };
  };
  /** D45: a test token (`svc_at_test_`) of a newly installed app, on a test store of its own. */
  const freshTestToken = async (scopes: Scope[]) => {
    const app = await createApp(server, owner.user.id, { requestedScopes: [...SCOPES], distribution: 'public' });
    const store = await createTestStoreOf(server, owner.user.id, app.clientId);
    return { clientId: app.clientId, ...(await installWithToken(server, app.clientId, store.id, scopes)) };
  };
  afterAll(async () => {
    await server.close();
  });

  const call = (r: AppRoute, headers: Record<string, string>, version?: ApiVersion) =>
    server.request(urlOf(r), {
      method: r.method,
      headers: { ...headers, ...(version ? { 'api-version': version } : {}) },
      ...(r.method === 'GET' ? {} : { json: {} }),
    });

  const expect401 = async (res: Response, invalidToken: boolean, version?: ApiVersion) => {
    expect(res.status).toBe(401);
    // D44: a versioned route's failures name the version too (none asked: the latest).
    if (version) expect(res.headers.get('api-version')).toBe(version);
    expect(await res.json()).toMatchObject({ statusCode: 401, error: 'Unauthorized' });
    const challenge = res.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(/^Bearer /);
    if (invalidToken) expect(challenge).toContain('error="invalid_token"');
    else expect(challenge).not.toContain('error=');
  };

  /** Waits until the revocation feed has carried a revocation to this process (D13: < 1 s). */
  const untilRefused = async (r: AppRoute, token: string, version?: ApiVersion) => {
    const deadline = Date.now() + 1500;
    let res = await call(r, bearer(token), version);
    while (res.status !== 401 && Date.now() < deadline) {
      await new Promise((ok) => setTimeout(ok, 100));
      res = await call(r, bearer(token), version);
    }
    return res;
  };

  it('covers every token route of routes.tsv', () => {
    const fromTsv = tsvRows.filter((c) => c[2] === 'token').map((c) => `${c[0]} ${c[1]}`);
    expect(tokenRoutes.map(label).sort()).toEqual(fromTsv.sort());
    expect(dashboardRoutes.map(label).sort()).toEqual(
      tsvRows
        .filter((c) => c[2] === 'dashboard')
        .map((c) => `${c[0]} ${c[1]}`)
        .sort(),
    );
  });

  describe.each(API_VERSIONS.flatMap((v) => tokenRoutesOf(v).map((r) => [v, label(r), r] as const)))(
    '%s %s',
    (version, _name, route) => {
      const meta = metaOf(route);
      const { enough, forbidden } = scopesFor(meta);
      // D45: a route of test stores only is called with a test token; a live token is refused.
      const tokenFor = meta.mode === 'test' ? freshTestToken : freshToken;

      it('accepts a token with the scope it needs (answers past authentication)', async () => {
        const { accessToken } = await tokenFor(enough);
        const res = await call(route, bearer(accessToken), version);
        expect([401, 403, 429]).not.toContain(res.status);
        expect(res.status < 500, `status ${res.status}`).toBe(true);
      });

      if (meta.mode === 'test') {
        it('refuses a live token with 403, test stores only, whatever its scopes (D45)', async () => {
          const { accessToken } = await freshToken([...SCOPES]);
          const res = await call(route, bearer(accessToken), version);
          expect(res.status).toBe(403);
          expect(await res.json()).toMatchObject({ statusCode: 403, error: 'Forbidden', message: TEST_STORES_ONLY });
        });
      }

      it('refuses no token with 401 and a bare Bearer challenge', async () => {
        await expect401(await call(route, {}, version), false, version);
      });

      it('refuses garbage, malformed headers and non-Bearer schemes as invalid_token', async () => {
        await expect401(await call(route, bearer('svc_at_garbage'), version), true, version);
        await expect401(await call(route, { authorization: 'Bearer' }, version), true, version);
        await expect401(await call(route, { authorization: 'Basic dXNlcjpwYXNz' }, version), true, version);
      });

      it('refuses an expired token', async () => {
        const keys = tokenKeys(server.config.secretKey, server.config.publicBaseUrl);
        const past = Math.floor(Date.now() / 1000) - 10;
        const { installationId, clientId } = await freshToken(enough);
        const jwt = signJwt(keys.access, {
          iss: keys.issuer,
          aud: 'protection-service:access',
          sub: clientId,
          jti: `expired-${Math.random()}`,
          gid: null,
          iid: installationId,
          sid: owner.store.id,
          scope: enough.join(' '),
          iat: past - 3600,
          exp: past,
        });
        await expect401(await call(route, bearer(`svc_at_${jwt}`), version), true, version);
      });

      it('refuses a token signed with another key, and one with alg none', async () => {
        const other = tokenKeys(Buffer.alloc(32, 7), server.config.publicBaseUrl);
        const { clientId } = await freshToken(enough);
        const claims = {
          iss: server.config.publicBaseUrl,
          aud: 'protection-service:access',
          sub: clientId,
          jti: 'forged',
          gid: null,
          iid: 'in_x',
          sid: owner.store.id,
          scope: enough.join(' '),
          iat: Math.floor(Date.now() / 1000),
          exp: Math.floor(Date.now() / 1000) + 600,
        };
        await expect401(await call(route, bearer(`svc_at_${signJwt(other.access, claims)}`), version), true, version);
        const none = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.`;
        await expect401(await call(route, bearer(`svc_at_${none}`), version), true, version);
      });

      it('refuses a revoked token within a second', async () => {
        const { accessToken, jti } = await tokenFor(enough);
        await recordRevocation(server.db, 'token', jti, new Date(Date.now() + 3600_000));
        await expect401(await untilRefused(route, accessToken, version), true, version);
      });

      it('refuses a token of an uninstalled app within a second', async () => {
        const { accessToken, installationId } = await tokenFor(enough);
        await recordRevocation(server.db, 'installation', installationId, new Date(Date.now() + 3600_000));
        await expect401(await untilRefused(route, accessToken, version), true, version);
      });

      it('refuses refresh, dashboard and session-style tokens where an access token is due', async () => {
        await expect401(await call(route, bearer(`svc_rt_${'a'.repeat(43)}`), version), true, version);
        await expect401(
          await call(route, bearer(await dashboardTokenFor(server, owner.user.id)), version),
          true,
          version,
        );
      });

      it('refuses a token without the scope with 403 naming it', async () => {
        const held = SCOPES.filter((s) => !forbidden.includes(s));
        const { accessToken } = await tokenFor(held);
        const res = await call(route, bearer(accessToken), version);
        // A route that needs no scope (2025-01-01's PUT /v2/settings, the test helpers of D45) never answers 403.
        if (meta.scopes.kind === 'none') {
          expect(res.status).not.toBe(403);
          return;
        }
        expect(res.status).toBe(403);
        const body = (await res.json()) as { message: string; error: string };
        expect(body.error).toBe('Forbidden');
        for (const scope of forbidden) expect(body.message).toContain(named(version, scope));
        expect(res.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
        if (meta.scopes.kind === 'perType' && meta.scopes.requires) {
          const withoutBase = SCOPES.filter((s) => s !== (meta.scopes as { requires: Scope }).requires);
          const other = await freshToken(withoutBase);
          const res2 = await call(route, bearer(other.accessToken), version);
          expect(res2.status).toBe(403);
          expect(((await res2.json()) as { message: string }).message).toContain(named(version, meta.scopes.requires));
        }
      });
    },
  );

  /**
   * D49: a staff token passes the same gate as an app's: its role's scopes decide, a route of
   * an installed app's own partner context refuses it (403), a live one is refused on the test
   * helpers (D45), and one whose membership ended is refused (401).
   */
  describe('staff tokens (D49)', () => {
    const staff = {} as Record<Role | 'ended', string>;
    beforeAll(async () => {
      for (const role of ['owner', 'admin', 'agent', 'viewer'] as const) {
        const user = await createUser(server.db, {
          email: `sec-staff-${role}@example.com`,
          password: 'a long enough password',
          storeIds: [owner.store.id],
          role,
        });
        const minted = await server
          .api(await dashboardTokenFor(server, user.id))
          .stores.mintStaffToken({ params: { storeId: owner.store.id } });
        if (minted.status !== 200) throw new Error(`minting answered ${minted.status}`);
        staff[role] = minted.body.data.access_token;
        if (role === 'agent') {
          const again = await server
            .api(await dashboardTokenFor(server, user.id))
            .stores.mintStaffToken({ params: { storeId: owner.store.id } });
          if (again.status !== 200) throw new Error(`minting answered ${again.status}`);
          staff.ended = again.body.data.access_token;
        }
      }
      const agent = await server.db
        .selectFrom('dashboardUsers')
        .select('id')
        .where('email', '=', 'sec-staff-agent@example.com')
        .executeTakeFirstOrThrow();
      await removeMember(server.db, owner.store.id, agent.id);
    });

    it.each(tokenRoutesOf(LATEST_API_VERSION).map((r) => [label(r), r] as const))('%s', async (_name, route) => {
      const meta = metaOf(route);
      const ownContext = route.path.startsWith('/v2/settings/context');
      for (const role of ['owner', 'admin', 'viewer'] as const) {
        const res = await call(route, bearer(staff[role]));
        // A CSV answer (D52) is text; every refusal is JSON.
        const text = await res.text();
        const body = (res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : {}) as {
          message?: string;
        };
        // The gate's order: the scope rule, then the mode (D45), then the route's own refusal.
        if (!satisfies(meta, ROLE_SCOPES[role])) {
          expect(res.status, role).toBe(403);
          expect(res.headers.get('www-authenticate'), role).toContain('error="insufficient_scope"');
        } else if (meta.mode === 'test') {
          expect(res.status, role).toBe(403);
          expect(body.message, role).toBe(TEST_STORES_ONLY);
        } else if (ownContext) {
          expect(res.status, role).toBe(403);
          expect(body.message, role).toBe(APP_ONLY);
        } else {
          expect([401, 403, 429], `${role}: ${res.status}`).not.toContain(res.status);
          expect(res.status < 500, `${role}: ${res.status}`).toBe(true);
        }
      }
      // The removed member's token fails within a second of the removal (D13).
      await expect401(await untilRefused(route, staff.ended), true);
    });
  });

  describe.each(dashboardRoutes.map((r) => [label(r), r] as const))('%s', (_name, route) => {
    it('refuses no token, garbage and access tokens; accepts a dashboard token', async () => {
      await expect401(await call(route, {}), false);
      await expect401(await call(route, bearer('not-a-jwt')), true);
      const { accessToken } = await freshToken([...SCOPES]);
      await expect401(await call(route, bearer(accessToken)), true);
      const res = await call(route, bearer(await dashboardTokenFor(server, owner.user.id)));
      expect([401, 403]).not.toContain(res.status);
    });
  });

  it('a PATCH of store-credit fields on a context also needs store-credit:update', async () => {
    const { accessToken } = await freshToken(['partner-context:update']);
    const res = await server.request('/v2/settings/context/sec-ctx', {
      method: 'PATCH',
      headers: bearer(accessToken),
      json: { storeCreditBonus: 5 },
    });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { message: string }).message).toContain('store-credit:update');
  });

  it("a store's token reads only its own store (D7)", async () => {
    const other = await createOwner(server.db, 'sec-other');
    await server.db
      .updateTable('merchantSettings')
      .set({ storeCreditBonus: 42 })
      .where('storeId', '=', owner.store.id)
      .execute();
    const { accessToken } = await freshToken(['store:read'], other.store.id);
    const res = await server.request('/v2/settings', { headers: bearer(accessToken) });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: { storeCreditBonus: number } }).data.storeCreditBonus).toBe(0);
  });

  // The shared tenant-isolation test (another app on another store) covers these routes too;
  // this one installs the SAME app on two stores, since a context is keyed by (store, app).
  it.each(API_VERSIONS)(
    'a partner context and its cohorts of another store answer exactly like missing ones, for the same app (D7), on %s',
    async (version) => {
      // D44: 2025-01-01 answers without the envelope and creates contexts with a variantKey.
      const old = changedBy(version, 'unwrapped-answers');
      const v = { 'api-version': version };
      const bare = <T>(body: unknown) => (old ? { data: body as T } : (body as { data: T }));
      const a = await freshToken([...SCOPES]);
      const post = (path: string, json: unknown) =>
        server.request(path, { method: 'POST', headers: { ...bearer(a.accessToken), ...v }, json });
      const ctx = bare<{ id: string }>(
        await (await post('/v2/settings/context', old ? { name: 'A', variantKey: 'iso' } : { name: 'A' })).json(),
      );
      const set = bare<{ id: string }>(
        await (
          await post(`/v2/settings/context/${ctx.data.id}/pricing`, { variantKey: 'iso', type: 'SHIPPING', rules: [] })
        ).json(),
      );
      const widget = bare<{ id: string }>(
        await (await post(`/v2/settings/context/${ctx.data.id}/widgets`, { variantKey: 'iso', type: 'CART' })).json(),
      );
      // The same app installed on another store: its token must not reach store A's rows.
      const otherStore = await createOwner(server.db, `sec-iso-${version}`);
      const b = await installWithToken(server, a.clientId, otherStore.store.id, [...SCOPES]);
      const bodies: Record<string, unknown> = {
        createPriceSet: { variantKey: 'iso2', type: 'SHIPPING', rules: [] },
        updatePriceSet: { automaticallyAddToCart: true },
        createWidget: { variantKey: 'iso2', type: 'CART' },
        updateWidget: { name: 'x' },
        updateContext: { name: 'x' },
      };
      const routes = [
        ...Object.entries(contract.settings).filter(([, r]) => r.path.includes(':contextId')),
        ...Object.entries(contract.cohorts),
      ];
      expect(routes).toHaveLength(13);
      for (const [name, route] of routes) {
        const send = (ids: Record<string, string>) =>
          server.request(
            route.path.replace(/:(\w+)/g, (_m, p: string) => ids[p]!),
            {
              method: route.method,
              headers: { ...bearer(b.accessToken), ...v },
              ...(bodies[name] !== undefined ? { json: bodies[name] } : {}),
            },
          );
        const real = await send({ contextId: ctx.data.id, priceSetId: set.data.id, widgetConfigId: widget.data.id });
        const missing = await send({
          contextId: 'ctx_missing',
          priceSetId: 'ps_missing',
          widgetConfigId: 'cw_missing',
        });
        expect(real.status, name).toBe(404);
        expect(await real.json(), name).toEqual(await missing.json());
      }
      // Store A's cohort is untouched and still quotes for A only.
      const quote = async (tok: string) =>
        bare<{ source: string }>(
          await (
            await server.request('/v2/quote', {
              method: 'POST',
              headers: { ...bearer(tok), ...v },
              json: { orderTotal: 1, variantKey: 'iso' },
            })
          ).json(),
        );
      expect((await quote(a.accessToken)).data.source).toBe('partner');
      expect((await quote(b.accessToken)).data.source).toBe('merchant');
    },
  );
});
