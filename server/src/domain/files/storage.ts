import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import { refuse } from '../../lib/refusal';

/** D56: the data folder (`FILE_STORAGE=local`) or an S3-compatible bucket (`s3://bucket/prefix`). */
export type FileStorageConfig =
  | { kind: 'local'; dir: string }
  | {
      kind: 's3';
      bucket: string;
      /** Keys are written under it: empty, or ending with `/`. */
      prefix: string;
      endpoint: string | undefined;
      region: string;
      /** Absent: the S3 client's own chain (environment, instance role). Never logged. */
      credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
      forcePathStyle: boolean;
    };

/**
 * Where files' bytes live (D56): the data folder or any S3-compatible store, behind one
 * interface. A store that cannot be reached throws `StorageUnavailable` (answered 503 with
 * Retry-After, D46); a key that names nothing throws `StoredFileMissing`.
 */
export interface FileStorage {
  readonly kind: 'local' | 's3';
  put(key: string, bytes: Uint8Array, type: string): Promise<void>;
  /** The bytes as a stream; the first byte has arrived when it resolves, or it rejects. */
  get(key: string): Promise<Readable>;
  /** Removes the bytes; a key already gone is no error. */
  remove(key: string): Promise<void>;
  close(): void;
}

export class StorageUnavailable extends Error {
  constructor(cause: unknown) {
    super('file storage cannot be reached', { cause });
    this.name = 'StorageUnavailable';
  }
}

export class StoredFileMissing extends Error {
  constructor(key: string) {
    super(`no stored bytes under ${key}`);
    this.name = 'StoredFileMissing';
  }
}

/** D46: the refusal an unreachable storage answers. */
export const storageRefusal = () => refuse.unavailable('file storage cannot be reached; try again shortly');

export function openFileStorage(config: FileStorageConfig): FileStorage {
  return config.kind === 'local' ? localStorage(config.dir) : s3Storage(config);
}

/** Keys are `<store>/<file>`: ids of the service's own alphabet, never a path a caller chose. */
const SAFE_KEY = /^[a-z0-9_]+\/[a-z0-9_]+$/;

function checkedKey(key: string): string {
  if (!SAFE_KEY.test(key)) throw new Error(`unsafe storage key ${JSON.stringify(key)}`);
  return key;
}

function localStorage(dir: string): FileStorage {
  const fileOf = (key: string) => path.join(dir, checkedKey(key));
  return {
    kind: 'local',
    async put(key, bytes) {
      const file = fileOf(key);
      // Written beside, then renamed: a reader never sees half a file.
      const partial = `${file}.${randomBytes(6).toString('hex')}.partial`;
      try {
        await mkdir(path.dirname(file), { recursive: true });
        await writeFile(partial, bytes, { flag: 'wx', mode: 0o600 });
        await rename(partial, file);
      } catch (err) {
        await rm(partial, { force: true }).catch(() => {});
        throw new StorageUnavailable(err);
      }
    },
    async get(key) {
      try {
        return (await open(fileOf(key), 'r')).createReadStream();
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new StoredFileMissing(key);
        throw new StorageUnavailable(err);
      }
    },
    async remove(key) {
      await rm(fileOf(key), { force: true }).catch((err: unknown) => {
        throw new StorageUnavailable(err);
      });
    },
    close() {},
  };
}

/** Seconds an S3 request may take before the store counts as unreachable. */
const S3_TIMEOUT_MS = 10_000;

function s3Storage(config: Extract<FileStorageConfig, { kind: 's3' }>): FileStorage {
  // The S3 client is loaded at the first use: a process that stores on disk never loads it.
  let loaded: Promise<{ s3: typeof import('@aws-sdk/client-s3'); client: S3Client }> | undefined;
  const connect = () =>
    (loaded ??= import('@aws-sdk/client-s3').then((s3) => ({
      s3,
      client: new s3.S3Client({
        region: config.region,
        endpoint: config.endpoint,
        forcePathStyle: config.forcePathStyle,
        ...(config.credentials ? { credentials: config.credentials } : {}),
        maxAttempts: 2,
        requestHandler: { connectionTimeout: 3000, requestTimeout: S3_TIMEOUT_MS },
      }),
    })));
  const Key = (key: string) => `${config.prefix}${checkedKey(key)}`;
  const Bucket = config.bucket;
  return {
    kind: 's3',
    async put(key, bytes, type) {
      const { s3, client } = await connect();
      await client
        .send(new s3.PutObjectCommand({ Bucket, Key: Key(key), Body: bytes, ContentType: type }))
        .catch((err: unknown) => {
          throw new StorageUnavailable(err);
        });
    },
    async get(key) {
      const { s3, client } = await connect();
      try {
        const answer = await client.send(new s3.GetObjectCommand({ Bucket, Key: Key(key) }));
        return answer.Body as Readable;
      } catch (err) {
        if (isMissing(err)) throw new StoredFileMissing(key);
        throw new StorageUnavailable(err);
      }
    },
    async remove(key) {
      const { s3, client } = await connect();
      await client.send(new s3.DeleteObjectCommand({ Bucket, Key: Key(key) })).catch((err: unknown) => {
        if (!isMissing(err)) throw new StorageUnavailable(err);
      });
    },
    close() {
      void loaded?.then(({ client }) => client.destroy());
    },
  };
}

function isMissing(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404;
}
