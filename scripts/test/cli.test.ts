import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerApp } from '../../server/src/domain/identity/apps';
import { runScript } from '../../server/test/harness/processes';
import { cloneDatabase } from '../../server/test/harness/server';

/** `pnpm cli` against a real database (DATABASE_URL of a cloned test database). */

describe('pnpm cli', () => {
  let database: Awaited<ReturnType<typeof cloneDatabase>>;
  beforeAll(async () => {
    database = await cloneDatabase();
  });
  afterAll(async () => {
    await database.drop();
  });

  const cli = (...args: string[]) =>
    runScript(['scripts/cli.ts', ...args], { ...process.env, DATABASE_URL: database.url });

  let storeId: string;

  it('store create --json creates a store with its defaults (D7, D30)', async () => {
    const r = await cli(
      'store',
      'create',
      '--name',
      'CLI Shop',
      '--domain',
      'CLI-Shop.example.com',
      '--currency',
      'JPY',
      '--json',
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const { store } = JSON.parse(r.stdout);
    expect(store).toEqual({
      id: expect.stringMatching(/^st_/),
      name: 'CLI Shop',
      domain: 'cli-shop.example.com',
      currency: 'JPY',
    });
    storeId = store.id;
    const ruleSets = await database.db
      .selectFrom('pricingRuleSets')
      .select('type')
      .where('storeId', '=', storeId)
      .execute();
    expect(ruleSets.map((r) => r.type).sort()).toEqual(['EXTENDED_WARRANTY', 'SHIPPING']);
    const widgets = await database.db
      .selectFrom('widgetConfigs')
      .select('type')
      .where('storeId', '=', storeId)
      .execute();
    expect(widgets.map((w) => w.type).sort()).toEqual(['CART', 'CHECKOUT', 'INFO_MODAL']);
    const settings = await database.db
      .selectFrom('merchantSettings')
      .selectAll()
      .where('storeId', '=', storeId)
      .execute();
    expect(settings).toHaveLength(1);
  }, 30_000);

  it('refuses a second store with the same domain, and creates nothing', async () => {
    const r = await cli('store', 'create', '--name', 'Other', '--domain', 'cli-shop.example.com');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/exists already/);
    const count = await database.db
      .selectFrom('stores')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(1);
  }, 30_000);

  it('refuses an unknown currency', async () => {
    const r = await cli('store', 'create', '--name', 'X', '--domain', 'x.example.com', '--currency', 'ABC');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/currency/);
  }, 30_000);

  it('user create --json stores an argon2id hash, never the password', async () => {
    const r = await cli(
      'user',
      'create',
      '--email',
      'Owner@Example.com',
      '--password',
      'correct horse',
      '--store',
      storeId,
      '--json',
    );
    expect(r.code).toBe(0);
    const { user } = JSON.parse(r.stdout);
    expect(user).toMatchObject({ email: 'owner@example.com', storeIds: [storeId] });
    expect(r.stdout).not.toContain('correct horse');
    const row = await database.db
      .selectFrom('dashboardUsers')
      .select('passwordHash')
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(row.passwordHash).toMatch(/^\$argon2id\$/);
    expect(row.passwordHash).not.toContain('correct horse');
  }, 30_000);

  it('user create refuses an unknown store, a taken e-mail and a short password', async () => {
    expect(
      (
        await cli(
          'user',
          'create',
          '--email',
          'a@example.com',
          '--password',
          'long enough too',
          '--store',
          'st_missing',
        )
      ).code,
    ).toBe(2);
    expect(
      (await cli('user', 'create', '--email', 'owner@example.com', '--password', 'long enough too', '--store', storeId))
        .code,
    ).toBe(2);
    expect(
      (await cli('user', 'create', '--email', 'b@example.com', '--password', 'short', '--store', storeId)).code,
    ).not.toBe(0);
  }, 60_000);

  it("user create --role sets the member's role (D49), owner by default; an unknown role is refused", async () => {
    const roleOf = async (userId: string) =>
      (
        await database.db
          .selectFrom('storeMembers')
          .select('role')
          .where('userId', '=', userId)
          .where('storeId', '=', storeId)
          .executeTakeFirstOrThrow()
      ).role;
    const agent = await cli(
      'user',
      'create',
      '--email',
      'agent@example.com',
      '--password',
      'long enough too',
      '--store',
      storeId,
      '--role',
      'agent',
      '--json',
    );
    expect(agent.code).toBe(0);
    const created = JSON.parse(agent.stdout).user;
    expect(created.role).toBe('agent');
    expect(await roleOf(created.id)).toBe('agent');
    const owner = await database.db
      .selectFrom('dashboardUsers')
      .select('id')
      .where('email', '=', 'owner@example.com')
      .executeTakeFirstOrThrow();
    expect(await roleOf(owner.id)).toBe('owner');
    const refused = await cli(
      'user',
      'create',
      '--email',
      'boss@example.com',
      '--password',
      'long enough too',
      '--store',
      storeId,
      '--role',
      'boss',
    );
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/owner, admin, agent, viewer/);
  }, 60_000);

  it('seed --json prints a demo store and user, and reuses them when run again', async () => {
    const first = JSON.parse((await cli('seed', '--json')).stdout);
    const second = JSON.parse((await cli('seed', '--json')).stdout);
    expect(first.store.domain).toBe('demo-store.localhost');
    expect(second.store.id).toBe(first.store.id);
    expect(second.user.id).toBe(first.user.id);
    expect(second.user.password).not.toBe(first.user.password);
  }, 60_000);

  it('app approve-pricing --json approves a public app (D9); refuses private and unknown apps', async () => {
    const owner = await database.db.selectFrom('dashboardUsers').select('id').executeTakeFirstOrThrow();
    const register = (distribution: 'public' | 'private') =>
      registerApp(database.db, Buffer.alloc(32, 1), owner.id, {
        name: `Pricing ${distribution}`,
        redirectUris: ['https://app.example.com/cb'],
        requestedScopes: distribution === 'public' ? ['pricing:shipping-insurance:read'] : ['order:read'],
        distribution,
      });
    const approvedOf = async (clientId: string) =>
      (
        await database.db
          .selectFrom('apps')
          .select('pricingApproved')
          .where('clientId', '=', clientId)
          .executeTakeFirstOrThrow()
      ).pricingApproved;

    const publicApp = await register('public');
    expect(await approvedOf(publicApp.clientId)).toBe(false);
    const r = await cli('app', 'approve-pricing', publicApp.clientId, '--json');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ app: { clientId: publicApp.clientId, pricingApproved: true } });
    expect(await approvedOf(publicApp.clientId)).toBe(true);

    const privateApp = await register('private');
    const refused = await cli('app', 'approve-pricing', privateApp.clientId);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/private apps/);
    expect(await approvedOf(privateApp.clientId)).toBe(false);

    const unknown = await cli('app', 'approve-pricing', 'svc_app_missing');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no app/);
  }, 60_000);

  it('refuses a .test domain for a live store (D45): it names test stores', async () => {
    const r = await cli('store', 'create', '--name', 'Sneaky', '--domain', 'sneaky.test');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/\.test/);
    expect(await database.db.selectFrom('stores').select('id').where('domain', '=', 'sneaky.test').execute()).toEqual(
      [],
    );
  }, 30_000);

  it('app test-store creates a test store for an app; store list leaves it out unless --include-test (D45)', async () => {
    const owner = await database.db.selectFrom('dashboardUsers').select('id').executeTakeFirstOrThrow();
    const app = await registerApp(database.db, Buffer.alloc(32, 1), owner.id, {
      name: 'Test mode',
      redirectUris: ['https://app.example.com/cb'],
      requestedScopes: ['order:read'],
      distribution: 'public',
    });
    const made = await cli('app', 'test-store', app.clientId, '--name', 'CLI Dev', '--json');
    expect(made.stderr).toBe('');
    expect(made.code).toBe(0);
    const { store } = JSON.parse(made.stdout);
    expect(store).toMatchObject({ livemode: false, domain: expect.stringMatching(/^cli-dev-[a-z0-9]+\.test$/) });
    const ids = async (...flags: string[]) =>
      (JSON.parse((await cli('store', 'list', '--json', ...flags)).stdout).stores as { id: string }[]).map((s) => s.id);
    const live = await ids();
    expect(live).not.toContain(store.id);
    expect(live).toContain(storeId);
    expect(await ids('--include-test')).toEqual(expect.arrayContaining([store.id, storeId]));
    expect((await cli('app', 'test-store', 'svc_app_missing', '--name', 'X')).code).toBe(2);
  }, 60_000);
});
