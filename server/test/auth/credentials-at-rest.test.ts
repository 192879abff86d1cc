import { createHash, randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../../sdk/src/index';
import { createStore } from '../../src/domain/identity/stores';
import { createUser } from '../../src/domain/identity/users';
import { answered, bearer } from '../harness/fixtures';
import { startTestServer, type TestServer } from '../harness/server';

/**
 * D5: after a full OAuth dance through HTTP — login, refresh, app registration, install with
 * PKCE, code exchange, refresh rotation, client credentials, session-token minting — a dump
 * of every table holds no usable token, code, client secret, webhook secret or password.
 */
describe('credentials at rest', () => {
  let server: TestServer;
  const secrets = new Map<string, string>();
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it('performs the whole dance through HTTP', async () => {
    const password = `pw-${randomBytes(12).toString('hex')}`;
    secrets.set('password', password);
    const store = await createStore(server.db, { name: 'Rest', domain: 'rest.example.com' });
    await createUser(server.db, { email: 'rest@example.com', password, storeIds: [store.id] });

    const login = answered(await server.api().auth.login({ body: { email: 'rest@example.com', password } }), 200).data;
    secrets.set('dashboard access token', login.access_token);
    secrets.set('dashboard refresh token (retired)', login.refresh_token);
    const refreshed = answered(
      await server.api().auth.refresh({ body: { refreshToken: login.refresh_token } }),
      200,
    ).data;
    secrets.set('dashboard refresh token', refreshed.refresh_token);
    const dashboard = server.api(refreshed.access_token);

    const app = answered(
      await dashboard.apps.create({
        body: {
          name: 'Rest App',
          redirectUris: ['https://rest-app.example.com/cb'],
          webhookUrl: 'https://rest-app.example.com/hooks',
          webhookTopics: ['claim/created'],
          requestedScopes: ['store:read', 'read_orders'],
          distribution: 'public',
        },
      }),
      201,
    ).data;
    secrets.set('client secret (rotated out)', app.clientSecret);
    secrets.set('webhook secret', app.webhookSecret);
    const rotated = answered(await dashboard.apps.rotateSecret({ params: { clientId: app.clientId } }), 200).data;
    secrets.set('client secret', rotated.clientSecret);

    const verifier = randomBytes(48).toString('base64url');
    secrets.set('PKCE verifier', verifier);
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const approved = answered(
      await dashboard.oauth.approve({
        body: {
          clientId: app.clientId,
          redirectUri: 'https://rest-app.example.com/cb',
          storeId: store.id,
          state: 'xyz',
          codeChallenge: challenge,
          codeChallengeMethod: 'S256',
        },
      }),
      200,
    ).data;
    secrets.set('authorization code', approved.code);

    const client = { client_id: app.clientId, client_secret: rotated.clientSecret };
    const token = async (body: Parameters<Client['oauth']['token']>[0]['body']) =>
      answered(await server.api().oauth.token({ body }), 200);
    const tokens = await token({
      grant_type: 'authorization_code',
      ...client,
      code: approved.code,
      redirect_uri: 'https://rest-app.example.com/cb',
      code_verifier: verifier,
    });
    secrets.set('access token (code)', tokens.access_token);
    secrets.set('refresh token (retired)', tokens.refresh_token!);
    const again = await token({ grant_type: 'refresh_token', ...client, refresh_token: tokens.refresh_token! });
    secrets.set('access token (refresh)', again.access_token);
    secrets.set('refresh token', again.refresh_token!);
    const cc = await token({ grant_type: 'client_credentials', ...client, store_id: store.id });
    secrets.set('access token (client credentials)', cc.access_token);
    const session = answered(
      await dashboard.stores.mintSessionToken({ params: { storeId: store.id, clientId: app.clientId } }),
      200,
    ).data;
    secrets.set('session token', session.session_token);

    const settings = await server.request('/v2/settings', { headers: bearer(again.access_token) });
    expect(settings.status).toBe(200);
  }, 30_000);

  it('leaves no credential in any table', async () => {
    expect(secrets.size).toBeGreaterThanOrEqual(15);
    const tables = await sql<{ tableName: string }>`
      select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'
    `.execute(server.db);
    let dump = '';
    for (const { tableName } of tables.rows) {
      const rows = await sql<{
        row: string;
      }>`select row_to_json(t)::text as row from ${sql.table(tableName)} t`.execute(server.db);
      dump += rows.rows.map((r) => r.row).join('\n');
    }
    expect(dump).toContain('rest@example.com');
    for (const [name, value] of secrets) {
      // The value, and its random part without the prefix or JWT header, must both be absent.
      const tail = value.includes('.') ? value.split('.').pop()! : value.replace(/^svc_[a-z]+_/, '');
      expect(dump.includes(value), `${name} found in the database`).toBe(false);
      expect(tail.length).toBeGreaterThan(10);
      expect(dump.includes(tail), `${name} (random part) found in the database`).toBe(false);
    }
  });
});
