import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { FileStorageConfig } from '../../src/domain/files/storage';
import { freePort } from '../../src/free-port';
import { containerRuntimeAnswers } from './container-runtime';

/**
 * A real S3-compatible server for the file storage tests (D56): MinIO through testcontainers
 * when a container runtime answers, else s3rver (an S3 server in Node from npm) on a loopback
 * port. `stop` and `start` make an outage and its end on the same address.
 */
export interface S3TestServer {
  kind: 'minio' | 's3rver';
  config: Extract<FileStorageConfig, { kind: 's3' }>;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

const BUCKET = 'evidence';
const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export async function startS3(prefix = 'files/'): Promise<S3TestServer> {
  return (await startMinio(prefix).catch(() => null)) ?? startS3rver(prefix);
}

const s3Config = (endpoint: string, prefix: string, credentials = CREDENTIALS): S3TestServer['config'] => ({
  kind: 's3',
  bucket: BUCKET,
  prefix,
  endpoint,
  region: 'us-east-1',
  credentials,
  forcePathStyle: true,
});

async function startS3rver(prefix: string): Promise<S3TestServer> {
  const { default: S3rver } = await import('s3rver');
  const directory = await mkdtemp(path.join(os.tmpdir(), 's3rver-'));
  const port = await freePort();
  const options = {
    address: '127.0.0.1',
    port,
    silent: true,
    directory,
    configureBuckets: [{ name: BUCKET, configs: [] }],
  };
  let server: InstanceType<typeof S3rver> | undefined = new S3rver(options);
  await server.run();
  return {
    kind: 's3rver',
    config: s3Config(`http://127.0.0.1:${port}`, prefix),
    async stop() {
      await server?.close();
      server = undefined;
    },
    async start() {
      server = new S3rver(options);
      await server.run();
    },
    async close() {
      await server?.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/** MinIO in a container, only where a runtime answers within a few seconds (as the database harness). */
async function startMinio(prefix: string): Promise<S3TestServer | null> {
  if (!(await containerRuntimeAnswers())) return null;
  const { GenericContainer, getContainerRuntimeClient } = await import('testcontainers');
  const credentials = { accessKeyId: 'minio-test', secretAccessKey: 'minio-test-secret' };
  const container = await new GenericContainer('minio/minio:latest')
    .withCommand(['server', '/data'])
    .withEnvironment({ MINIO_ROOT_USER: credentials.accessKeyId, MINIO_ROOT_PASSWORD: credentials.secretAccessKey })
    .withExposedPorts(9000)
    .start();
  await container.exec(['mkdir', '-p', `/data/${BUCKET}`]);
  const endpoint = `http://${container.getHost()}:${container.getMappedPort(9000)}`;
  return {
    kind: 'minio',
    config: s3Config(endpoint, prefix, credentials),
    // A paused container answers nothing: an outage on the same address.
    async stop() {
      await (await getContainerRuntimeClient()).container.getById(container.getId()).pause();
    },
    async start() {
      await (await getContainerRuntimeClient()).container.getById(container.getId()).unpause();
    },
    async close() {
      await container.stop();
    },
  };
}
