import type { Scope, TCreatedTestStore, TTestStore } from '@protection-service/contract';
import { MAX_TEST_STORES_PER_APP } from '@protection-service/contract';
import type { Db } from '../../db/database';
import { transact } from '../../db/transact';
import { digest, randomCredential } from '../../lib/crypto';
import { newId } from '../../lib/ids';
import { refuse } from '../../lib/refusal';
import { TEST_CLIENT_SECRET_PREFIX } from './apps';
import { upsertInstallation } from './installations';
import { insertStore, TEST_DOMAIN_SUFFIX, withDomainConflict } from './stores';

/**
 * Test stores (D45): stores with `livemode` false for life, made by the owner of an app for
 * that app, with the app installed on every scope it requests. Their data is kept apart from
 * live data the way any store's is (D7: every row is keyed by its store); what mode adds is
 * here, in the credentials (../auth/oauth.ts), the auth gate (http/auth.ts), webhooks and mail.
 */

const APP_NOT_FOUND = 'app not found';

interface TestStoreRow {
  id: string;
  name: string;
  domain: string;
  createdAt: Date;
}

const view = (row: TestStoreRow): TTestStore => ({
  id: row.id,
  name: row.name,
  domain: row.domain,
  livemode: false,
  createdAt: row.createdAt.toISOString(),
});

/** `<slug>.test`: the name in lower-case letters, digits and dashes, and a random tail for uniqueness. */
function testStoreDomain(name: string): string {
  const slug =
    name
      .normalize('NFKD')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40)
      .replace(/-+$/, '') || 'store';
  return `${slug}-${newId('t').slice(-8).toLowerCase()}${TEST_DOMAIN_SUFFIX}`;
}

/** The owner's app, locked until the transaction ends (so that concurrent creations count one by one). */
export async function lockOwnedApp(trx: Db, clientId: string, ownerUserId: string) {
  const app = await trx
    .selectFrom('apps')
    .select(['clientId', 'requestedScopes', 'testClientSecretHash'])
    .where('clientId', '=', clientId)
    .where('ownerUserId', '=', ownerUserId)
    .forUpdate()
    .executeTakeFirst();
  if (!app) throw refuse.missing(APP_NOT_FOUND);
  return app;
}

/**
 * Creates a test store of the owner's app (D45): the store and its defaults, the owner as
 * its member, and the app installed on all its requested scopes (the admin-gated pricing
 * scopes included, without approval: the grant is this installation's, on this store only,
 * and never reaches a live one). At most MAX_TEST_STORES_PER_APP per app (409). An app
 * without a test client secret gets one here, shown in this answer only.
 */
export async function createTestStore(
  db: Db,
  ownerUserId: string,
  clientId: string,
  name: string,
): Promise<TCreatedTestStore> {
  const domain = testStoreDomain(name);
  return withDomainConflict(domain, () =>
    transact(db, async (trx) => {
      const app = await lockOwnedApp(trx, clientId, ownerUserId);
      const { count } = await trx
        .selectFrom('stores')
        .select((eb) => eb.fn.countAll<string>().as('count'))
        .where('testClientId', '=', clientId)
        .executeTakeFirstOrThrow();
      if (Number(count) >= MAX_TEST_STORES_PER_APP) {
        throw refuse.conflict(`an app has at most ${MAX_TEST_STORES_PER_APP} test stores`);
      }
      const store = await insertStore(trx, { id: newId('st'), name, domain, currency: 'USD' }, clientId);
      await trx.insertInto('storeMembers').values({ storeId: store.id, userId: ownerUserId }).execute();
      await upsertInstallation(trx, {
        storeId: store.id,
        clientId,
        scopes: app.requestedScopes as Scope[],
        userId: ownerUserId,
      });
      let testClientSecret: string | undefined;
      if (app.testClientSecretHash === null) {
        testClientSecret = randomCredential(TEST_CLIENT_SECRET_PREFIX);
        await trx
          .updateTable('apps')
          .set({ testClientSecretHash: digest(testClientSecret), updatedAt: new Date() })
          .where('clientId', '=', clientId)
          .execute();
      }
      const row = await trx
        .selectFrom('stores')
        .select(['id', 'name', 'domain', 'createdAt'])
        .where('id', '=', store.id)
        .executeTakeFirstOrThrow();
      return { ...view(row), ...(testClientSecret ? { testClientSecret } : {}) };
    }),
  );
}

/** The owner of an app, for the operator's `pnpm cli app test-store` (404 for an unknown app). */
export async function appOwner(db: Db, clientId: string): Promise<string> {
  const app = await db.selectFrom('apps').select('ownerUserId').where('clientId', '=', clientId).executeTakeFirst();
  if (!app) throw refuse.missing(`no app with client id ${clientId}`);
  return app.ownerUserId;
}

/** The test stores of the owner's app, oldest first (D45); another user's app answers 404. */
export async function listTestStores(db: Db, ownerUserId: string, clientId: string): Promise<TTestStore[]> {
  const app = await db
    .selectFrom('apps')
    .select('clientId')
    .where('clientId', '=', clientId)
    .where('ownerUserId', '=', ownerUserId)
    .executeTakeFirst();
  if (!app) throw refuse.missing(APP_NOT_FOUND);
  const rows = await db
    .selectFrom('stores')
    .select(['id', 'name', 'domain', 'createdAt'])
    .where('testClientId', '=', clientId)
    .where('livemode', '=', false)
    .orderBy('createdAt')
    .orderBy('id')
    .execute();
  return rows.map(view);
}
