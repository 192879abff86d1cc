import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimStore } from '../../server/test/harness/claims';
import { startTestServer, type TestServer } from '../../server/test/harness/server';
import { createClient } from '../src/index';

/**
 * A merchant's own way in (D49), through the SDK: sign in, mint a staff token for the store,
 * act on its claims with it as the person, write the store's defaults (D53), and change the password.
 */
describe('staff through the SDK (D49)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({}, { rateLimits: { auth: 10_000 } });
  });
  afterAll(async () => {
    await server.close();
  });

  it('signs in, mints a staff token, decides a claim as the user, and changes the password', async () => {
    const s = await claimStore(server, 'sdk-staff');
    await s.putOrder('o-sdk-staff');
    const claimId = await s.fileId('o-sdk-staff');
    const anonymous = createClient({ baseUrl: server.baseUrl, retry: false });
    const login = await anonymous.auth.login({ body: { email: s.owner.user.email, password: s.owner.password } });
    expect(login.status).toBe(200);
    if (login.status !== 200) return;
    const dashboard = createClient({
      baseUrl: server.baseUrl,
      accessToken: login.body.data.access_token,
      retry: false,
    });

    const minted = await dashboard.stores.mintStaffToken({ params: { storeId: s.owner.store.id } });
    expect(minted.status).toBe(200);
    if (minted.status !== 200) return;
    expect(minted.body.data.access_token).toMatch(/^svc_at_/);
    expect(minted.body.data.scope.split(' ')).toContain('claim:manage');

    const staff = createClient({ baseUrl: server.baseUrl, accessToken: minted.body.data.access_token, retry: false });
    const approved = await staff.claims.approve({
      params: { claimId },
      body: { resolutions: [{ type: 'RESHIP' }] },
    });
    expect(approved.status).toBe(200);
    if (approved.status !== 200) return;
    expect(approved.body.claimResolutions.map((r) => r.userId)).toEqual([s.owner.user.id]);

    // D53: the owner writes the store's defaults with the dashboard token, as a merchant's write.
    const written = await dashboard.stores.updateSettings({
      params: { storeId: s.owner.store.id },
      body: { storeCreditMaxPercentage: 40 },
    });
    expect(written.status).toBe(200);
    if (written.status !== 200) return;
    expect(written.body.data).toMatchObject({ storeCreditMaxPercentage: 40, updatedByApplicationId: null });

    // D53: the owner reads who did it in the audit log, newest first.
    const audit = await dashboard.stores.listAuditEvents({
      params: { storeId: s.owner.store.id },
      query: { first: 5 },
    });
    expect(audit.status).toBe(200);
    if (audit.status !== 200) return;
    expect(audit.body.data.edges.map((e) => e.node.action).slice(0, 2)).toEqual(['settings.updated', 'claim.approved']);

    const changed = await dashboard.auth.changePassword({
      body: { currentPassword: s.owner.password, newPassword: 'a brand new long password' },
    });
    expect(changed.status).toBe(200);
    const relogin = await anonymous.auth.login({
      body: { email: s.owner.user.email, password: 'a brand new long password' },
    });
    expect(relogin.status).toBe(200);
  });
});
