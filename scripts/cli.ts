/**
 * Operator CLI: `pnpm cli <command>`. Uses the same database as `pnpm start` (DATABASE_URL,
 * or the embedded PostgreSQL in DATA_DIR, joined while the server runs).
 */
import { randomBytes } from 'node:crypto';
import { isRole, MIN_PASSWORD_LENGTH, ROLES, type Role, ZCurrency, ZEmail } from '@protection-service/contract';
import { Command, InvalidArgumentError } from 'commander';
import { loadConfig } from '../server/src/config';
import { type OpenDatabase, openDatabase } from '../server/src/db/open';
import { approvePricing } from '../server/src/domain/identity/apps';
import { createStore, findStore, listStores } from '../server/src/domain/identity/stores';
import { appOwner, createTestStore } from '../server/src/domain/identity/test-stores';
import { createUser, hashPassword } from '../server/src/domain/identity/users';
import { Refusal } from '../server/src/lib/refusal';

const program = new Command('cli').description('Protection Service operator commands').showHelpAfterError();

function print(json: boolean, value: Record<string, unknown>, text: string): void {
  process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${text}\n`);
}

async function withDatabase<T>(run: (db: OpenDatabase['db']) => Promise<T>): Promise<T> {
  const database = await openDatabase(loadConfig());
  try {
    return await run(database.db);
  } finally {
    await database.close();
  }
}

const parseWith = (schema: { safeParse(v: unknown): { success: boolean } }, what: string) => (value: string) => {
  if (!schema.safeParse(value).success) throw new InvalidArgumentError(`not a valid ${what}`);
  return value;
};

const store = program.command('store').description('manage stores');
store
  .command('create')
  .description('create a store with its default settings, rule sets and widget configs')
  .requiredOption('--name <name>', 'store name')
  .requiredOption(
    '--domain <domain>',
    'storefront domain, the store_url of public reads (never .test, which names test stores)',
  )
  .option('--currency <code>', 'default ISO 4217 currency', parseWith(ZCurrency, 'currency code'), 'USD')
  .option('--json', 'print JSON')
  .action(async (opts: { name: string; domain: string; currency: string; json?: boolean }) => {
    const created = await withDatabase((db) => createStore(db, opts));
    print(!!opts.json, { store: created }, `created store ${created.id} (${created.domain})`);
  });

store
  .command('list')
  .description('list the live stores, oldest first; test stores (D45) only with --include-test')
  .option('--include-test', 'list test stores too')
  .option('--json', 'print JSON')
  .action(async (opts: { includeTest?: boolean; json?: boolean }) => {
    const stores = await withDatabase((db) => listStores(db, { includeTest: !!opts.includeTest }));
    const lines = stores.map((s) => `${s.id}\t${s.domain}\t${s.name}${s.livemode ? '' : '\t(test)'}`);
    print(!!opts.json, { stores }, lines.join('\n'));
  });

const user = program.command('user').description('manage dashboard users');
user
  .command('create')
  .description('create a dashboard user who belongs to a store')
  .requiredOption('--email <email>', 'e-mail address', parseWith(ZEmail, 'e-mail address'))
  .requiredOption(
    '--password <password>',
    `password (at least ${MIN_PASSWORD_LENGTH} characters, D49)`,
    (v: string) => {
      if (v.length < MIN_PASSWORD_LENGTH || v.length > 256) {
        throw new InvalidArgumentError(`must be ${MIN_PASSWORD_LENGTH} to 256 characters`);
      }
      return v;
    },
  )
  .requiredOption('--store <id>', 'id of the store the user belongs to')
  .option(
    '--role <role>',
    `the user's role in the store (D49): ${ROLES.join(', ')}`,
    (v: string): Role => {
      if (!isRole(v)) throw new InvalidArgumentError(`must be one of ${ROLES.join(', ')}`);
      return v;
    },
    'owner',
  )
  .option('--json', 'print JSON')
  .action(async (opts: { email: string; password: string; store: string; role: Role; json?: boolean }) => {
    const created = await withDatabase((db) =>
      createUser(db, { email: opts.email, password: opts.password, storeIds: [opts.store], role: opts.role }),
    );
    print(
      !!opts.json,
      { user: { ...created, role: opts.role } },
      `created user ${created.id} (${created.email}), ${opts.role} of store ${opts.store}`,
    );
  });

const app = program.command('app').description('manage apps');
app
  .command('approve-pricing')
  .description("approve a public app's admin-gated pricing scopes (spec, D9); private apps can never have them")
  .argument('<clientId>', 'client id of the app (svc_app_…)')
  .option('--json', 'print JSON')
  .action(async (clientId: string, opts: { json?: boolean }) => {
    await withDatabase((db) => approvePricing(db, clientId));
    print(!!opts.json, { app: { clientId, pricingApproved: true } }, `approved pricing scopes of app ${clientId}`);
  });

app
  .command('test-store')
  .description("create a test store for an app (D45), owned by the app's owner, the app installed on all its scopes")
  .argument('<clientId>', 'client id of the app (svc_app_…)')
  .requiredOption('--name <name>', 'store name; the domain is its slug with .test')
  .option('--json', 'print JSON')
  .action(async (clientId: string, opts: { name: string; json?: boolean }) => {
    const created = await withDatabase(async (db) =>
      createTestStore(db, await appOwner(db, clientId), clientId, opts.name),
    );
    const secret = created.testClientSecret ? `\ntest client secret (shown once): ${created.testClientSecret}` : '';
    print(!!opts.json, { store: created }, `created test store ${created.id} (${created.domain})${secret}`);
  });

const DEMO = { name: 'Demo Store', domain: 'demo-store.localhost', email: 'demo@example.com' };

program
  .command('seed')
  .description('create (or reuse) a demo store and a demo user with a fresh password')
  .option('--json', 'print JSON')
  .action(async (opts: { json?: boolean }) => {
    const password = randomBytes(12).toString('base64url');
    const result = await withDatabase(async (db) => {
      const demoStore = (await findStore(db, { domain: DEMO.domain })) ?? (await createStore(db, DEMO));
      const existing = await db
        .selectFrom('dashboardUsers')
        .select('id')
        .where('email', '=', DEMO.email)
        .executeTakeFirst();
      let userId: string;
      if (existing) {
        userId = existing.id;
        await db
          .updateTable('dashboardUsers')
          .set({ passwordHash: await hashPassword(password) })
          .where('id', '=', userId)
          .execute();
        await db
          .insertInto('storeMembers')
          .values({ storeId: demoStore.id, userId })
          .onConflict((oc) => oc.doNothing())
          .execute();
      } else {
        userId = (
          await createUser(db, {
            email: DEMO.email,
            password,
            storeIds: [demoStore.id],
            firstName: 'Demo',
            lastName: 'Merchant',
          })
        ).id;
      }
      return { store: demoStore, user: { id: userId, email: DEMO.email, password } };
    });
    print(
      !!opts.json,
      result,
      `demo store ${result.store.id} (${result.store.domain})\ndemo user ${result.user.email} / ${result.user.password}`,
    );
  });

program.parseAsync().catch((err: unknown) => {
  // A refusal (a taken domain or e-mail, an unknown store or app) is the user's to fix: exit 2.
  const known = err instanceof Refusal;
  process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(known ? 2 : 1);
});
