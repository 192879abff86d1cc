import { randomBytes } from 'node:crypto';
import type { Scope, TCreatedApp } from '@protection-service/contract';
import type { TError } from '../../../sdk/src/index';
import type { Db } from '../../src/db/database';
import { issueAccessToken, issueDashboardToken, tokenKeys } from '../../src/domain/auth/tokens';
import { registerApp } from '../../src/domain/identity/apps';
import { createStore, type Store } from '../../src/domain/identity/stores';
import { createTestStore } from '../../src/domain/identity/test-stores';
import { createUser, type DashboardUser } from '../../src/domain/identity/users';
import { newId } from '../../src/lib/ids';
import type { TestServer } from './server';

/**
 * Test data made through the domain functions, for tests whose subject is something else
 * (the OAuth endpoints have their own tests that go through HTTP end to end).
 */
export interface Owner {
  store: Store;
  user: DashboardUser;
  password: string;
}

export async function createOwner(db: Db, label = randomBytes(4).toString('hex')): Promise<Owner> {
  const store = await createStore(db, { name: `Store ${label}`, domain: `${label}.example.com` });
  const password = `pw-${randomBytes(8).toString('hex')}`;
  const user = await createUser(db, { email: `owner-${label}@example.com`, password, storeIds: [store.id] });
  return { store, user, password };
}

/** A dashboard token for a user, as login would issue it (D8). */
export async function dashboardTokenFor(server: TestServer, userId: string): Promise<string> {
  const grantId = newId('gr');
  await server.db.insertInto('grants').values({ id: grantId, kind: 'dashboard', userId }).execute();
  return issueDashboardToken(tokenKeys(server.config.secretKey, server.config.publicBaseUrl), { grantId, userId })
    .token;
}

export async function createApp(
  server: TestServer,
  ownerUserId: string,
  overrides: Partial<Parameters<typeof registerApp>[3]> = {},
): Promise<TCreatedApp> {
  return registerApp(server.db, server.config.secretKey, ownerUserId, {
    name: 'Test App',
    redirectUris: ['https://app.example.com/callback'],
    requestedScopes: ['order:read', 'order:update', 'store:read', 'partner-context:update', 'quote:read'],
    distribution: 'public',
    ...overrides,
  });
}

interface Installed {
  installationId: string;
  accessToken: string;
  jti: string;
}

/**
 * Installs an app on a store (or reuses its active installation, setting its scopes) and
 * mints an access token with the given scopes for it.
 */
export async function installWithToken(
  server: TestServer,
  clientId: string,
  storeId: string,
  scopes: Scope[],
): Promise<Installed> {
  const active = await server.db
    .updateTable('installations')
    .set({ scopes })
    .where('storeId', '=', storeId)
    .where('clientId', '=', clientId)
    .where('uninstalledAt', 'is', null)
    .returning('id')
    .executeTakeFirst();
  const installationId = active?.id ?? newId('in');
  if (!active)
    await server.db.insertInto('installations').values({ id: installationId, storeId, clientId, scopes }).execute();
  // D45: a test store's token is a test token (`svc_at_test_`).
  const store = await server.db.selectFrom('stores').select('livemode').where('id', '=', storeId).executeTakeFirst();
  const issued = issueAccessToken(tokenKeys(server.config.secretKey, server.config.publicBaseUrl), {
    grantId: null,
    installationId,
    storeId,
    clientId,
    scopes,
    livemode: store?.livemode ?? true,
  });
  return { installationId, accessToken: issued.token, jti: issued.claims.jti };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/**
 * A test store of the app (D45), made as `POST /v1/apps/:clientId/test-stores` makes it: the
 * owner as its member and the app installed on all its requested scopes.
 */
export async function createTestStoreOf(
  server: TestServer,
  ownerUserId: string,
  clientId: string,
  name = 'Test store',
) {
  return createTestStore(server.db, ownerUserId, clientId, name);
}

/**
 * A store with its owner, a private app installed there, and an access token for it, made
 * straight in the database: for servers in other processes (multi-process tests,
 * benchmarks), which must share `secret` and `issuer` (SECRET_KEY, PUBLIC_BASE_URL).
 */
export async function installedAppWithToken(
  db: Db,
  secret: Buffer,
  issuer: string,
  label = randomBytes(4).toString('hex'),
  scopes: Scope[] = ['store:read'],
  appOptions: Partial<Parameters<typeof registerApp>[3]> = {},
) {
  const owner = await createOwner(db, label);
  const app = await registerApp(db, secret, owner.user.id, {
    name: `App ${label}`,
    redirectUris: [`https://${label}.example.com/cb`],
    requestedScopes: scopes,
    distribution: 'private',
    ...appOptions,
  });
  const installationId = newId('in');
  await db
    .insertInto('installations')
    .values({ id: installationId, storeId: owner.store.id, clientId: app.clientId, scopes })
    .execute();
  const issued = issueAccessToken(tokenKeys(secret, issuer), {
    grantId: null,
    installationId,
    storeId: owner.store.id,
    clientId: app.clientId,
    scopes,
  });
  return { ...owner, app, installationId, token: issued.token, jti: issued.claims.jti };
}

/**
 * The body of a typed client's answer, after checking its status: `answered(await
 * server.api(token).apps.get(...), 200).data` is typed by the route's 200 answer.
 */
export function answered<R extends { status: number; body: unknown }, S extends R['status']>(
  res: R,
  status: S,
): BodyAt<R, S> {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body as BodyAt<R, S>;
}

/** The body type of the answers in `R` whose status may be `S` (errors share one answer type). */
type BodyAt<R, S> = R extends { status: infer T; body: infer B } ? (S extends T ? B : never) : never;

/**
 * Rate limits count per clock minute (D4): waits, when needed, so that the next `ms` fall
 * inside one minute, and a test's requests are not split across two windows.
 */
export async function withinOneRateWindow(ms = 10_000): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 60_000 - ms) await new Promise((r) => setTimeout(r, 60_000 - intoMinute + 100));
}

/** The error body of a raw answer (one a typed client could not have asked for). */
export const errorOf = (res: Response): Promise<TError> => res.json();
