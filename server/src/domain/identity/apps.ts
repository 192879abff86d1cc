import {
  type ApiVersion,
  isAdminGatedScope,
  LATEST_API_VERSION,
  normalizeScope,
  type Scope,
  type TApp,
  type TCreateAppRequest,
  type TCreatedApp,
  type TUpdateAppRequest,
} from '@protection-service/contract';
import type { Db } from '../../db/database';
import type { AppsTable } from '../../db/schema';
import { transact } from '../../db/transact';
import { decryptedSecret, deriveKey, digest, encrypt, matchesDigest, randomCredential } from '../../lib/crypto';
import { refuse } from '../../lib/refusal';

const CLIENT_ID_PREFIX = 'svc_app_';
const CLIENT_SECRET_PREFIX = 'svc_secret_';
/** D45: the test client secret, for the app's test stores only. */
export const TEST_CLIENT_SECRET_PREFIX = 'svc_test_secret_';
const WEBHOOK_SECRET_PREFIX = 'svc_whsec_';

/**
 * Requested scopes in later style (D16). Unknown names and `write_settings` are refused;
 * a private app may never ask for the admin-gated pricing scopes (spec, D9).
 */
function normalizeRequestedScopes(names: readonly string[], distribution: 'public' | 'private'): Scope[] {
  const scopes = new Set<Scope>();
  for (const name of names) {
    const scope = normalizeScope(name);
    if (!scope) throw refuse.invalidAt('body.requestedScopes', `unknown scope: ${name}`);
    if (distribution === 'private' && isAdminGatedScope(scope)) {
      throw refuse.invalidAt('body.requestedScopes', `private apps cannot request admin-gated pricing scopes: ${name}`);
    }
    scopes.add(scope);
  }
  return [...scopes];
}

type AppRow = Pick<
  AppsTable,
  'clientId' | 'name' | 'redirectUris' | 'webhookUrl' | 'requestedScopes' | 'distribution'
> & {
  testWebhookUrl: string | null;
  webhookTopics: string[];
  apiVersion: string;
  pricingApproved: boolean;
  createdAt: Date;
  updatedAt: Date;
};

function appView(row: AppRow): TApp {
  return {
    clientId: row.clientId,
    name: row.name,
    redirectUris: row.redirectUris,
    webhookUrl: row.webhookUrl,
    testWebhookUrl: row.testWebhookUrl,
    webhookTopics: row.webhookTopics as TApp['webhookTopics'],
    requestedScopes: row.requestedScopes as Scope[],
    apiVersion: row.apiVersion as ApiVersion,
    distribution: row.distribution,
    pricingApproved: row.pricingApproved,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

const APP_COLUMNS = [
  'clientId',
  'name',
  'redirectUris',
  'webhookUrl',
  'testWebhookUrl',
  'webhookTopics',
  'apiVersion',
  'requestedScopes',
  'distribution',
  'pricingApproved',
  'createdAt',
  'updatedAt',
] as const;

/** Registers an app for its owner (D9); the answer shows both secrets this one time. */
export async function registerApp(
  db: Db,
  secretKey: Buffer,
  ownerUserId: string,
  input: TCreateAppRequest,
): Promise<TCreatedApp> {
  const requestedScopes = normalizeRequestedScopes(input.requestedScopes, input.distribution);
  const clientId = randomCredential(CLIENT_ID_PREFIX).slice(0, CLIENT_ID_PREFIX.length + 24);
  const clientSecret = randomCredential(CLIENT_SECRET_PREFIX);
  const testClientSecret = randomCredential(TEST_CLIENT_SECRET_PREFIX);
  const webhookSecret = randomCredential(WEBHOOK_SECRET_PREFIX);
  const row = await db
    .insertInto('apps')
    .values({
      clientId,
      ownerUserId,
      name: input.name,
      redirectUris: input.redirectUris,
      webhookUrl: input.webhookUrl ?? null,
      webhookTopics: input.webhookTopics ?? [],
      requestedScopes,
      distribution: input.distribution,
      apiVersion: LATEST_API_VERSION,
      clientSecretHash: digest(clientSecret),
      testClientSecretHash: digest(testClientSecret),
      webhookSecretCiphertext: encrypt(deriveKey(secretKey, 'webhook-secret-encryption'), webhookSecret),
    })
    .returning(APP_COLUMNS)
    .executeTakeFirstOrThrow();
  return { ...appView(row), clientSecret, testClientSecret, webhookSecret };
}

/** An app of another user answers exactly what a missing app answers (D7: 404). */
const APP_NOT_FOUND = 'app not found';

/** The app, when `ownerUserId` owns it; a foreign app is refused as missing (D7). */
export async function ownedApp(db: Db, clientId: string, ownerUserId: string): Promise<TApp> {
  const row = await db
    .selectFrom('apps')
    .select(APP_COLUMNS)
    .where('clientId', '=', clientId)
    .where('ownerUserId', '=', ownerUserId)
    .executeTakeFirst();
  if (!row) throw refuse.missing(APP_NOT_FOUND);
  return appView(row);
}

/**
 * Changes the owner's app (D44): fields left out stay as they are. The app is read and
 * written in one transaction, so the rule that topics need a webhook URL holds for the
 * result whatever a concurrent change did.
 */
export async function updateApp(
  db: Db,
  clientId: string,
  ownerUserId: string,
  changes: TUpdateAppRequest,
): Promise<TApp> {
  return transact(db, async (trx) => {
    const current = await trx
      .selectFrom('apps')
      .select(['webhookUrl', 'testWebhookUrl', 'webhookTopics'])
      .where('clientId', '=', clientId)
      .where('ownerUserId', '=', ownerUserId)
      .forUpdate()
      .executeTakeFirst();
    if (!current) throw refuse.missing(APP_NOT_FOUND);
    // Topics need somewhere to go: the live URL, or the test URL for an app tried on test stores only (D45).
    const topics = changes.webhookTopics ?? current.webhookTopics;
    const webhookUrl = changes.webhookUrl ?? current.webhookUrl;
    const testWebhookUrl = changes.testWebhookUrl === undefined ? current.testWebhookUrl : changes.testWebhookUrl;
    if (topics.length > 0 && webhookUrl === null && testWebhookUrl === null) {
      throw refuse.invalidAt('body.webhookUrl', 'webhookUrl or testWebhookUrl is required with webhookTopics');
    }
    const row = await trx
      .updateTable('apps')
      .set({
        ...(changes.name !== undefined && { name: changes.name }),
        ...(changes.redirectUris !== undefined && { redirectUris: changes.redirectUris }),
        ...(changes.webhookUrl !== undefined && { webhookUrl: changes.webhookUrl }),
        ...(changes.testWebhookUrl !== undefined && { testWebhookUrl: changes.testWebhookUrl }),
        ...(changes.webhookTopics !== undefined && { webhookTopics: changes.webhookTopics }),
        ...(changes.apiVersion !== undefined && { apiVersion: changes.apiVersion }),
        updatedAt: new Date(),
      })
      .where('clientId', '=', clientId)
      .returning(APP_COLUMNS)
      .executeTakeFirstOrThrow();
    return appView(row);
  });
}

/**
 * Issues a new client secret of the owner's app, the live one or (D45) the test one; the old
 * one stops working at once (D9).
 */
export async function rotateClientSecret(
  db: Db,
  clientId: string,
  ownerUserId: string,
  mode: 'live' | 'test' = 'live',
): Promise<string> {
  const clientSecret = randomCredential(mode === 'live' ? CLIENT_SECRET_PREFIX : TEST_CLIENT_SECRET_PREFIX);
  const hash = digest(clientSecret);
  const updated = await db
    .updateTable('apps')
    .set(
      mode === 'live'
        ? { clientSecretHash: hash, updatedAt: new Date() }
        : { testClientSecretHash: hash, updatedAt: new Date() },
    )
    .where('clientId', '=', clientId)
    .where('ownerUserId', '=', ownerUserId)
    .returning('clientId')
    .executeTakeFirst();
  if (!updated) throw refuse.missing(APP_NOT_FOUND);
  return clientSecret;
}

export interface AuthenticatedClient {
  clientId: string;
  name: string;
  distribution: 'public' | 'private';
  pricingApproved: boolean;
  requestedScopes: Scope[];
  redirectUris: string[];
  /** D45: false when the client authenticated with its test secret, which works on test stores only. */
  livemode: boolean;
}

/**
 * OAuth client authentication (RFC 6749 §2.3.1): the app when the secret matches, compared
 * in constant time; undefined for an unknown client or a wrong secret alike. The secret's
 * prefix says which of the app's two secrets it must match (D45): the answer's `livemode`
 * says which did.
 */
export async function authenticateClient(
  db: Db,
  clientId: string,
  clientSecret: string,
): Promise<AuthenticatedClient | undefined> {
  const row = await db
    .selectFrom('apps')
    .select([
      'clientId',
      'name',
      'distribution',
      'pricingApproved',
      'requestedScopes',
      'redirectUris',
      'clientSecretHash',
      'testClientSecretHash',
    ])
    .where('clientId', '=', clientId)
    .executeTakeFirst();
  const livemode = !clientSecret.startsWith(TEST_CLIENT_SECRET_PREFIX);
  const stored = livemode ? row?.clientSecretHash : row?.testClientSecretHash;
  // Compare against a digest either way, so an unknown client costs the same as a known one.
  const ok = matchesDigest(clientSecret, stored ?? digest('no such client'));
  if (!row || !stored || !ok) return undefined;
  const { clientSecretHash: _hash, testClientSecretHash: _testHash, ...client } = row;
  return { ...client, requestedScopes: client.requestedScopes as Scope[], livemode };
}

/**
 * The scopes an installation may be granted: what the app requested, less the admin-gated
 * pricing scopes unless an operator approved this public app (spec, D9).
 */
export function grantableScopes(
  app: Pick<AuthenticatedClient, 'requestedScopes' | 'distribution' | 'pricingApproved'>,
): Scope[] {
  const pricingAllowed = app.distribution === 'public' && app.pricingApproved;
  return app.requestedScopes.filter((s) => pricingAllowed || !isAdminGatedScope(s));
}

/** Operator approval of a public app's pricing scopes (`pnpm cli app approve-pricing`). */
export async function approvePricing(db: Db, clientId: string): Promise<void> {
  const app = await db.selectFrom('apps').select('distribution').where('clientId', '=', clientId).executeTakeFirst();
  if (!app) throw refuse.missing(`no app with client id ${clientId}`);
  if (app.distribution !== 'public') throw refuse.invalid('private apps can never be granted pricing scopes');
  await db
    .updateTable('apps')
    .set({ pricingApproved: true, updatedAt: new Date() })
    .where('clientId', '=', clientId)
    .execute();
}

/**
 * The webhook secret, decrypted for signing deliveries (D32). Every attempt signs, so each
 * secret is decrypted once per process (`decryptedSecret`).
 */
export function webhookSecretOf(secretKey: Buffer, ciphertext: string): string {
  return decryptedSecret(secretKey, 'webhook-secret-encryption', ciphertext);
}

/** How long the previous webhook secret keeps signing after a rotation (D34). */
const PREVIOUS_WEBHOOK_SECRET_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * Issues a new webhook secret, shown once (D34). For 24 hours the previous one signs beside it
 * (two signatures, space-separated) while `x-webhook-secret` carries the new one. An app the
 * user does not own is refused as missing.
 */
export async function rotateWebhookSecret(
  db: Db,
  secretKey: Buffer,
  clientId: string,
  ownerUserId: string,
): Promise<{ webhookSecret: string; previousSecretExpiresAt: Date }> {
  const webhookSecret = randomCredential(WEBHOOK_SECRET_PREFIX);
  const previousSecretExpiresAt = new Date(Date.now() + PREVIOUS_WEBHOOK_SECRET_TTL_MS);
  const updated = await db
    .updateTable('apps')
    .set((eb) => ({
      previousWebhookSecretCiphertext: eb.ref('webhookSecretCiphertext'),
      previousWebhookSecretExpiresAt: previousSecretExpiresAt,
      webhookSecretCiphertext: encrypt(deriveKey(secretKey, 'webhook-secret-encryption'), webhookSecret),
      updatedAt: new Date(),
    }))
    .where('clientId', '=', clientId)
    .where('ownerUserId', '=', ownerUserId)
    .returning('clientId')
    .executeTakeFirst();
  if (!updated) throw refuse.missing(APP_NOT_FOUND);
  return { webhookSecret, previousSecretExpiresAt };
}
