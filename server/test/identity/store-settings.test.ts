import { randomBytes } from 'node:crypto';
import type { Role } from '@protection-service/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/domain/identity/users';
import { photosRequiredFor } from '../../src/domain/partner/settings';
import {
  answered,
  bearer,
  createApp,
  createOwner,
  dashboardTokenFor,
  errorOf,
  installWithToken,
  type Owner,
} from '../harness/fixtures';
import { startTestServer, type TestServer } from '../harness/server';

/**
 * PATCH /v1/stores/:storeId/settings (D53): an owner or admin writes the merchant defaults
 * with the spec's limits; other roles 403 (D49), a non-member 404 (D7); the write reads back
 * through GET /v2/settings with updatedByApplicationId null (a merchant's write).
 */
describe('the merchant writes its default settings (D53)', () => {
  let server: TestServer;
  let owner: Owner;
  let ownerDash: string;
  let appToken: string;

  beforeAll(async () => {
    server = await startTestServer();
    owner = await createOwner(server.db, `settings-${randomBytes(3).toString('hex')}`);
    ownerDash = await dashboardTokenFor(server, owner.user.id);
    const app = await createApp(server, owner.user.id, { requestedScopes: ['store:read', 'partner-context:update'] });
    appToken = (await installWithToken(server, app.clientId, owner.store.id, ['store:read', 'partner-context:update']))
      .accessToken;
  });
  afterAll(async () => {
    await server.close();
  });

  async function memberDash(role: Role, storeId = owner.store.id): Promise<string> {
    const user = await createUser(server.db, {
      email: `${role}-${randomBytes(4).toString('hex')}@example.com`,
      password: 'a long enough password',
      storeIds: [storeId],
      role,
    });
    return dashboardTokenFor(server, user.id);
  }

  const patch = (dash: string, body: unknown, storeId = owner.store.id) =>
    server.request(`/v1/stores/${storeId}/settings`, {
      method: 'PATCH',
      headers: { ...bearer(dash), 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const read = async () => answered(await server.api(appToken).settings.get(), 200).data;

  it('lets the owner write, answers the settings, and GET /v2/settings reads them back as a merchant write', async () => {
    const before = await read();
    const res = await patch(ownerDash, {
      storeCreditBonus: 5,
      storeCreditBonusType: 'percentage',
      sendSmsUpdates: true,
    });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data).toMatchObject({
      storeCreditBonus: 5,
      storeCreditBonusType: 'percentage',
      sendSmsUpdates: true,
      updatedByApplicationId: null,
    });
    // Sparse: what was not sent keeps its value.
    expect(data.cancelAfterPurchaseDurationSeconds).toBe(before.cancelAfterPurchaseDurationSeconds);
    // The cached read is dropped by the write (D29).
    await expect.poll(async () => (await read()).storeCreditBonus, { timeout: 5_000 }).toBe(5);
    expect((await read()).updatedByApplicationId).toBeNull();
  });

  it('starts photosRequiredFor at damaged, defective and wrong items, writes it as a set and reads it on GET /v2/settings (D56)', async () => {
    expect((await read()).photosRequiredFor).toEqual(['DAMAGED', 'DEFECTIVE_ITEM', 'WRONG_ITEM']);
    expect(await photosRequiredFor(server.db, owner.store.id)).toEqual(['DAMAGED', 'DEFECTIVE_ITEM', 'WRONG_ITEM']);
    const res = await patch(ownerDash, { photosRequiredFor: ['STOLEN', 'DAMAGED'] });
    expect(res.status).toBe(200);
    // Answered in the order of the issue types, whatever the order written.
    expect((await res.json()).data.photosRequiredFor).toEqual(['DAMAGED', 'STOLEN']);
    await expect.poll(async () => (await read()).photosRequiredFor, { timeout: 5_000 }).toEqual(['DAMAGED', 'STOLEN']);
    expect(await photosRequiredFor(server.db, owner.store.id)).toEqual(['DAMAGED', 'STOLEN']);
    // Sparse: a write of other fields keeps it; an empty list asks photos for no issue.
    await patch(ownerDash, { sendSmsUpdates: false });
    expect(await photosRequiredFor(server.db, owner.store.id)).toEqual(['DAMAGED', 'STOLEN']);
    expect((await patch(ownerDash, { photosRequiredFor: [] })).status).toBe(200);
    expect(await photosRequiredFor(server.db, owner.store.id)).toEqual([]);
    expect((await patch(ownerDash, { photosRequiredFor: ['DAMAGED', 'DEFECTIVE_ITEM', 'WRONG_ITEM'] })).status).toBe(
      200,
    );
  });

  it('lets an admin write through the SDK', async () => {
    const dash = await memberDash('admin');
    const res = await server.api(dash).stores.updateSettings({
      params: { storeId: owner.store.id },
      body: { storeCreditMaxPercentage: 80 },
    });
    expect(answered(res, 200).data.storeCreditMaxPercentage).toBe(80);
    // The partner's cached read follows once the write has dropped it (D29).
    await expect.poll(async () => (await read()).storeCreditMaxPercentage, { timeout: 5_000 }).toBe(80);
  });

  it('refuses an agent and a viewer (403) and changes nothing', async () => {
    const before = await read();
    for (const role of ['agent', 'viewer'] as const) {
      const res = await patch(await memberDash(role), { storeCreditMaxPercentage: 1 });
      expect(res.status, role).toBe(403);
      const err = await errorOf(res);
      expect(err.statusCode).toBe(403);
      expect(err.message).toMatch(/owner or admin/);
    }
    expect((await read()).storeCreditMaxPercentage).toBe(before.storeCreditMaxPercentage);
  });

  it("answers another store's member and an unknown store as missing (404, D7)", async () => {
    const outsider = await createOwner(server.db, `settings-out-${randomBytes(3).toString('hex')}`);
    const outsiderDash = await dashboardTokenFor(server, outsider.user.id);
    const foreign = await patch(outsiderDash, { storeCreditBonus: 1 });
    const unknown = await patch(outsiderDash, { storeCreditBonus: 1 }, 'st_nope');
    expect(foreign.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect((await errorOf(foreign)).message).toBe((await errorOf(unknown)).message);
  });

  it('refuses values beyond the limits, null and unknown fields with 400 in the D2 shape, writing nothing', async () => {
    const before = await read();
    for (const body of [
      { storeCreditMaxPercentage: 101 },
      { storeCreditMaxPercentage: -1 },
      { storeCreditBonus: -0.5 },
      { cancelAfterPurchaseDurationSeconds: -1 },
      { cancelAfterPurchaseDurationSeconds: 1.5 },
      { storeCreditBonusType: 'half' },
      { storeCreditType: null },
      { updatedByApplicationId: 'svc_app_x' },
      { storeCreditBonus: 3, nope: true },
      { photosRequiredFor: ['BROKEN'] },
      { photosRequiredFor: ['DAMAGED', 'DAMAGED'] },
      { photosRequiredFor: 'DAMAGED' },
      { photosRequiredFor: null },
    ]) {
      const res = await patch(ownerDash, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      const err = await errorOf(res);
      expect(err).toMatchObject({ statusCode: 400, error: 'Bad Request' });
      expect(typeof err.message).toBe('string');
    }
    expect(await read()).toEqual(before);
  });

  it('refuses a staff or app token: the route takes the dashboard token only', async () => {
    const res = await patch(appToken, { storeCreditBonus: 2 });
    expect(res.status).toBe(401);
  });
});
