import type { Scope, TCreateAppRequest } from '@protection-service/contract';
import type { Db } from '../../server/src/db/database';
import { issueAccessToken, tokenKeys } from '../../server/src/domain/auth/tokens';
import { registerApp } from '../../server/src/domain/identity/apps';
import { createStore, type Store } from '../../server/src/domain/identity/stores';
import { createUser } from '../../server/src/domain/identity/users';
import { newId } from '../../server/src/lib/ids';

interface BenchInstallation {
  store: Store;
  clientId: string;
  clientSecret: string;
  /** The app's webhook signing secret. */
  webhookSecret: string;
  installationId: string;
  /** An access token the server at `baseUrl` (its issuer) accepts. */
  tokenFor(baseUrl: string): string;
}

/** A store with a user, and an app of that user installed on it with `scopes`, for a benchmark. */
export async function benchInstallation(
  db: Db,
  secret: Buffer,
  label: string,
  scopes: Scope[],
  app: Partial<TCreateAppRequest> = {},
): Promise<BenchInstallation> {
  const stamp = `${label}-${Date.now()}`;
  const store = await createStore(db, { name: 'Bench', domain: `bench-${stamp}.example.com` });
  const user = await createUser(db, {
    email: `bench-${stamp}@example.com`,
    password: 'bench-password',
    storeIds: [store.id],
  });
  const created = await registerApp(db, secret, user.id, {
    name: 'Bench',
    redirectUris: ['https://bench.example.com/cb'],
    requestedScopes: scopes,
    distribution: 'private',
    ...app,
  });
  const installationId = newId('in');
  await db
    .insertInto('installations')
    .values({ id: installationId, storeId: store.id, clientId: created.clientId, scopes })
    .execute();
  return {
    store,
    clientId: created.clientId,
    clientSecret: created.clientSecret,
    webhookSecret: created.webhookSecret,
    installationId,
    tokenFor: (baseUrl) =>
      issueAccessToken(tokenKeys(secret, baseUrl), {
        grantId: null,
        installationId,
        storeId: store.id,
        clientId: created.clientId,
        scopes,
      }).token,
  };
}
