import { Readable } from 'node:stream';
import { SCOPES } from '@protection-service/contract';
import exifr from 'exifr';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gpsJpeg, pdf } from '../../server/test/harness/files';
import { createApp, createOwner, installWithToken } from '../../server/test/harness/fixtures';
import { startTestServer, type TestServer } from '../../server/test/harness/server';
import { createClient, FILE_MAX_BYTES, uploadFile } from '../src/index';
import { createClient as createClient2025 } from '../src/versions/2025-01-01';
import { createClient as createClient2026 } from '../src/versions/2026-12-01';

/**
 * Files through the SDK (D56): `uploadFile` takes a Blob, a Buffer, a Node.js stream or a web
 * stream; the file's bytes come back as a Blob; every dated version serves both routes.
 */
describe('SDK: files (D56)', () => {
  let server: TestServer;
  let token: string;

  beforeAll(async () => {
    server = await startTestServer({}, { rateLimits: { token: 1e9 } });
    const owner = await createOwner(server.db, 'sdk-files');
    const app = await createApp(server, owner.user.id, { requestedScopes: [...SCOPES] });
    token = (await installWithToken(server, app.clientId, owner.store.id, [...SCOPES])).accessToken;
  });
  afterAll(async () => {
    await server.close();
  });

  it('uploads a Blob, a Buffer, a Node.js stream and a web stream, and reads the bytes back', async () => {
    const client = createClient({ baseUrl: server.baseUrl, accessToken: token });
    const photo = await gpsJpeg();
    const inputs = [
      new Blob([photo]),
      photo,
      Readable.from([photo.subarray(0, 100), photo.subarray(100)]),
      new Blob([photo]).stream(),
    ];
    for (const input of inputs) {
      const res = await uploadFile(client, input, { filename: 'parcel.jpg' });
      expect(res.status).toBe(201);
      if (res.status !== 201) continue;
      expect(res.body.data.type).toBe('image/jpeg');
      const bytes = await client.files.content({ params: { fileId: res.body.data.id } });
      expect(bytes.status).toBe(200);
      if (bytes.status !== 200) continue;
      expect(bytes.body).toBeInstanceOf(Blob);
      expect(bytes.body.type).toBe('image/jpeg');
      expect(bytes.body.size).toBe(res.body.data.size);
      expect(await exifr.parse(Buffer.from(await bytes.body.arrayBuffer()), { gps: true })).toBeUndefined();
    }
  });

  it('sends the typed call as multipart too, and answers refusals in the D2 shape', async () => {
    const client = createClient({ baseUrl: server.baseUrl, accessToken: token });
    const res = await client.files.upload({ body: { file: new Blob([pdf()]), purpose: 'claim_evidence' } });
    expect(res.status).toBe(201);
    const svg = await uploadFile(client, new Blob(['<svg xmlns="http://www.w3.org/2000/svg"/>']));
    expect(svg.status).toBe(415);
    const big = await uploadFile(client, Readable.from([await gpsJpeg(), Buffer.alloc(FILE_MAX_BYTES)]));
    expect(big.status).toBe(413);
    if (big.status === 413) expect(big.body.statusCode).toBe(413);
  });

  it('serves both routes on every dated version', async () => {
    for (const make of [createClient2026, createClient2025]) {
      const client = make({ baseUrl: server.baseUrl, accessToken: token });
      const res = await client.files.upload({ body: { file: new Blob([await gpsJpeg()]), purpose: 'claim_evidence' } });
      expect(res.status).toBe(201);
      if (res.status !== 201) continue;
      const bytes = await client.files.content({ params: { fileId: res.body.data.id } });
      expect(bytes.status).toBe(200);
    }
  });
});
