import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isStoreMember, upsertInstallation } from '../../src/domain/identity/installations';
import { createUser } from '../../src/domain/identity/users';
import { digest } from '../../src/lib/crypto';
import { newId } from '../../src/lib/ids';
import {
  answered,
  bearer,
  createApp,
  createOwner,
  dashboardTokenFor,
  installWithToken,
  type Owner,
} from '../harness/fixtures';
import { startTestServer, type TestServer } from '../harness/server';

/** GET /v1/stores/:storeId/installations and DELETE .../installations/:clientId (D14). */
describe('installations (D14)', () => {
  let server: TestServer;
  let owner: Owner;
  let outsider: Owner;
  let token: string;
  let outsiderToken: string;
  beforeAll(async () => {
    server = await startTestServer();
    owner = await createOwner(server.db, 'inst');
    outsider = await createOwner(server.db, 'inst-out');
    token = await dashboardTokenFor(server, owner.user.id);
    outsiderToken = await dashboardTokenFor(server, outsider.user.id);
  });
  afterAll(async () => {
    await server.close();
  });

  const list = (storeId: string, as = token) => server.api(as).stores.listInstallations({ params: { storeId } });
  const remove = (storeId: string, clientId: string, as = token) =>
    server.request(`/v1/stores/${storeId}/installations/${clientId}`, { method: 'DELETE', headers: bearer(as) });
  /** A token route: a good token gets past the gate, a revoked one answers 401. */
  const tokenCall = (accessToken: string) => server.request('/v2/settings', { headers: bearer(accessToken) });

  it('lists the store installations for a member', async () => {
    const app = await createApp(server, owner.user.id, { name: 'Listed App' });
    const installed = await installWithToken(server, app.clientId, owner.store.id, ['order:read', 'store:read']);
    const { data } = answered(await list(owner.store.id), 200);
    expect(data).toContainEqual({
      id: installed.installationId,
      storeId: owner.store.id,
      clientId: app.clientId,
      appName: 'Listed App',
      scopes: ['order:read', 'store:read'],
      installedAt: expect.stringMatching(/\.\d{3}Z$/),
      updatedAt: expect.stringMatching(/\.\d{3}Z$/),
      uninstalledAt: null,
    });
    // Another store's installations are not listed.
    const foreignApp = await createApp(server, outsider.user.id);
    await installWithToken(server, foreignApp.clientId, outsider.store.id, ['order:read']);
    expect(data.some((i) => i.clientId === foreignApp.clientId)).toBe(false);
  });

  it('answers 404 to a non-member, exactly as for a missing store (D7)', async () => {
    const foreign = await list(owner.store.id, outsiderToken);
    const missing = await list('st_missing', outsiderToken);
    expect(foreign.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(foreign.body).toEqual(missing.body);
  });

  it('uninstalls: revokes every token of the installation in one go, keeps it listed as uninstalled', async () => {
    const app = await createApp(server, owner.user.id, { name: 'Leaving App' });
    const installed = await installWithToken(server, app.clientId, owner.store.id, ['store:read']);
    // An OAuth family of the installation with a live refresh token.
    const grantId = newId('gr');
    await server.db
      .insertInto('grants')
      .values({
        id: grantId,
        kind: 'oauth',
        clientId: app.clientId,
        storeId: owner.store.id,
        installationId: installed.installationId,
        scopes: ['store:read'],
      })
      .execute();
    await server.db
      .insertInto('refreshTokens')
      .values({ tokenHash: digest('svc_rt_test'), grantId, expiresAt: new Date(Date.now() + 3_600_000) })
      .execute();
    const before = await tokenCall(installed.accessToken);
    expect(before.status).not.toBe(401);

    const res = await remove(owner.store.id, app.clientId);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: { ok: true } });

    // D13: the access token answers 401 within about a second.
    await expect
      .poll(async () => (await tokenCall(installed.accessToken)).status, { timeout: 1500, interval: 100 })
      .toBe(401);

    const row = await server.db
      .selectFrom('installations')
      .select('uninstalledAt')
      .where('id', '=', installed.installationId)
      .executeTakeFirstOrThrow();
    expect(row.uninstalledAt).toBeInstanceOf(Date);
    const grant = await server.db
      .selectFrom('grants')
      .select('revokedAt')
      .where('id', '=', grantId)
      .executeTakeFirstOrThrow();
    expect(grant.revokedAt).toBeInstanceOf(Date);
    const refresh = await server.db
      .selectFrom('refreshTokens')
      .select('retiredAt')
      .where('grantId', '=', grantId)
      .executeTakeFirstOrThrow();
    expect(refresh.retiredAt).toBeInstanceOf(Date);
    const revocation = await server.db
      .selectFrom('revocations')
      .select(['kind', 'expiresAt'])
      .where('subject', '=', installed.installationId)
      .executeTakeFirstOrThrow();
    expect(revocation.kind).toBe('installation');
    // Remembered at least as long as an access token can live (3600 s).
    expect(revocation.expiresAt.getTime()).toBeGreaterThanOrEqual(Date.now() + 3_590_000);

    const listed = answered(await list(owner.store.id), 200).data;
    expect(listed.find((i) => i.id === installed.installationId)?.uninstalledAt).toMatch(/\.\d{3}Z$/);

    // Not installed any more: a second uninstall answers 404.
    expect((await remove(owner.store.id, app.clientId)).status).toBe(404);
  });

  it('answers 404 for an app that is not installed, and for a non-member, uninstalling nothing', async () => {
    const app = await createApp(server, owner.user.id);
    expect((await remove(owner.store.id, app.clientId)).status).toBe(404);
    expect((await remove(owner.store.id, 'svc_app_missing')).status).toBe(404);

    const installed = await installWithToken(server, app.clientId, owner.store.id, ['store:read']);
    const foreign = await remove(owner.store.id, app.clientId, outsiderToken);
    expect(foreign.status).toBe(404);
    const row = await server.db
      .selectFrom('installations')
      .select('uninstalledAt')
      .where('id', '=', installed.installationId)
      .executeTakeFirstOrThrow();
    expect(row.uninstalledAt).toBeNull();
    expect((await tokenCall(installed.accessToken)).status).not.toBe(401);
  });

  it('upsertInstallation creates, then updates the active installation; after an uninstall it creates anew', async () => {
    const app = await createApp(server, owner.user.id);
    const first = await server.db.transaction().execute((trx) =>
      upsertInstallation(trx, {
        storeId: owner.store.id,
        clientId: app.clientId,
        scopes: ['order:read'],
        userId: owner.user.id,
      }),
    );
    expect(first).toEqual({
      id: expect.stringMatching(/^in_/),
      storeId: owner.store.id,
      clientId: app.clientId,
      scopes: ['order:read'],
      created: true,
    });
    const second = await upsertInstallation(server.db, {
      storeId: owner.store.id,
      clientId: app.clientId,
      scopes: ['order:read', 'order:update', 'order:read'],
      userId: owner.user.id,
    });
    expect(second).toEqual({ ...first, scopes: ['order:read', 'order:update'], created: false });

    expect((await remove(owner.store.id, app.clientId)).status).toBe(200);
    const third = await upsertInstallation(server.db, {
      storeId: owner.store.id,
      clientId: app.clientId,
      scopes: ['order:read'],
      userId: owner.user.id,
    });
    expect(third.created).toBe(true);
    expect(third.id).not.toBe(first.id);

    // Concurrent approvals meet on the unique index: one installation, never two.
    const app2 = await createApp(server, owner.user.id);
    const both = await Promise.all(
      [1, 2, 3].map(() =>
        upsertInstallation(server.db, {
          storeId: owner.store.id,
          clientId: app2.clientId,
          scopes: ['store:read'],
          userId: owner.user.id,
        }),
      ),
    );
    expect(new Set(both.map((b) => b.id)).size).toBe(1);
  });

  it('isStoreMember knows members from outsiders', async () => {
    expect(await isStoreMember(server.db, owner.user.id, owner.store.id)).toBe(true);
    expect(await isStoreMember(server.db, outsider.user.id, owner.store.id)).toBe(false);
    expect(await isStoreMember(server.db, owner.user.id, 'st_missing')).toBe(false);
  });

  it('lets only an owner or admin uninstall: an agent or viewer is refused (403) and the app stays (D49)', async () => {
    const app = await createApp(server, owner.user.id, { requestedScopes: ['store:read'] });
    const { accessToken } = await installWithToken(server, app.clientId, owner.store.id, ['store:read']);
    for (const role of ['agent', 'viewer'] as const) {
      const user = await createUser(server.db, {
        email: `${role}-uninstall-${newId('x')}@example.com`,
        password: 'a long enough password',
        storeIds: [owner.store.id],
        role,
      });
      const res = await remove(owner.store.id, app.clientId, await dashboardTokenFor(server, user.id));
      expect(res.status, role).toBe(403);
    }
    expect((await tokenCall(accessToken)).status).toBe(200);
    const admin = await createUser(server.db, {
      email: `admin-uninstall-${newId('x')}@example.com`,
      password: 'a long enough password',
      storeIds: [owner.store.id],
      role: 'admin',
    });
    expect((await remove(owner.store.id, app.clientId, await dashboardTokenFor(server, admin.id))).status).toBe(200);
  });
});
