import { createHash } from 'node:crypto';
import { FILE_MAX_BYTES } from '@protection-service/contract';
import type { AppRoute } from '@ts-rest/core';
import busboy from 'busboy';
import type { Request, RequestHandler } from 'express';
import { SNIFF_BYTES, sniffType, UNSUPPORTED_TYPE } from '../lib/file-types';
import { badRequest, HttpError } from './errors';

/**
 * D56: the body of a route whose contract takes `multipart/form-data`, read after the caller
 * is authenticated, so no stranger's upload is ever read. The file part is kept in memory up
 * to the limit and no further: past 10 MiB the upload answers 413, and a file whose first
 * bytes are of no accepted type answers 415 at once; either way the rest is not read (the
 * answer closes the connection), so a refusal holds no more than what had arrived. The route
 * then sees `{file: Blob, ...fields}` and validates it against its schema as any body.
 */
/**
 * The SHA-256 of each file part read, by its Blob: what D33's request digest counts of an upload
 * (two uploads under one Idempotency-Key are the same request only with the same bytes).
 */
export const uploadDigests = new WeakMap<Blob, string>();

/**
 * A file part as the route sees it: a `Blob`, as the contract names it, over the bytes read,
 * which the upload's handler takes as they are (`uploadedBytes`). A `Blob` of its own would
 * hold a second copy of them, and its `arrayBuffer()` a third; this one copies only when read
 * as a `Blob` is read.
 */
class UploadedFile extends Blob {
  constructor(readonly buffer: Buffer) {
    super([]);
  }
  override get size(): number {
    return this.buffer.length;
  }
  override get type(): string {
    return '';
  }
  private whole(): Blob {
    return new Blob([this.buffer as Uint8Array<ArrayBuffer>]);
  }
  override arrayBuffer(): Promise<ArrayBuffer> {
    return this.whole().arrayBuffer();
  }
  override bytes(): Promise<Uint8Array<ArrayBuffer>> {
    return this.whole().bytes();
  }
  override text(): Promise<string> {
    return this.whole().text();
  }
  override stream() {
    return this.whole().stream();
  }
  override slice(start?: number, end?: number, type?: string): Blob {
    return this.whole().slice(start, end, type);
  }
}

/** The bytes of a file part this reader made, without a copy; undefined for any other Blob. */
export function uploadedBytes(file: Blob): Buffer | undefined {
  return file instanceof UploadedFile ? file.buffer : undefined;
}

export const multipartBody: RequestHandler = (req, res, next) => {
  const route = (req as Request & { tsRestRoute?: AppRoute }).tsRestRoute;
  if (!route || !('contentType' in route) || route.contentType !== 'multipart/form-data') return next();
  const type = (req.headers['content-type'] ?? '').toLowerCase();
  if (!type.startsWith('multipart/form-data')) {
    return next(new HttpError(415, 'content type must be multipart/form-data'));
  }
  // A body whose stated length cannot fit the limit is refused before a byte of it is read.
  if (Number(req.headers['content-length']) > FILE_MAX_BYTES + MULTIPART_OVERHEAD) {
    res.setHeader('connection', 'close');
    return next(new HttpError(413, TOO_LARGE));
  }
  readUpload(req).then(
    (body) => {
      req.body = body;
      next();
    },
    (err: unknown) => {
      // Whatever was not read stays unread: the connection closes after the answer.
      res.setHeader('connection', 'close');
      req.unpipe();
      next(err);
    },
  );
};

/** What the parts' headers, boundaries and the `purpose` field may add to the file's bytes. */
const MULTIPART_OVERHEAD = 64 * 1024;
const LIMITS = { files: 1, fileSize: FILE_MAX_BYTES, fields: 8, fieldSize: 1024, parts: 10 };
const TOO_LARGE = `the file exceeds ${FILE_MAX_BYTES / 1024 / 1024} MiB`;

function readUpload(req: Request): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, limits: LIMITS });
    } catch {
      reject(badRequest('malformed multipart/form-data body'));
      return;
    }
    const body: Record<string, unknown> = {};
    let settled = false;
    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      reject(err);
    };
    parser.on('file', (name, stream) => {
      if (name !== 'file') {
        stream.resume();
        return;
      }
      const chunks: Buffer[] = [];
      let received = 0;
      let sniffed = false;
      stream.on('data', (chunk: Buffer) => {
        if (settled) return;
        chunks.push(chunk);
        received += chunk.length;
        if (!sniffed && received >= SNIFF_BYTES) {
          sniffed = true;
          const start = Buffer.concat(chunks).subarray(0, SNIFF_BYTES);
          if (!sniffType(start)) fail(new HttpError(415, UNSUPPORTED_TYPE));
        }
      });
      stream.on('limit', () => fail(new HttpError(413, TOO_LARGE)));
      stream.on('end', () => {
        if (stream.truncated) return;
        // The bytes in one buffer, the chunks let go: the one copy the upload holds.
        const bytes = Buffer.concat(chunks, received);
        chunks.length = 0;
        const file = new UploadedFile(bytes);
        uploadDigests.set(file, createHash('sha256').update(bytes).digest('base64url'));
        body.file = file;
      });
    });
    parser.on('field', (name, value) => {
      if (name !== 'file') body[name] = value;
    });
    parser.on('partsLimit', () => fail(badRequest('too many parts in the multipart body')));
    parser.on('fieldsLimit', () => fail(badRequest('too many fields in the multipart body')));
    parser.on('error', () => fail(badRequest('malformed multipart/form-data body')));
    parser.on('close', () => {
      if (settled) return;
      settled = true;
      resolve(body);
    });
    req.on('aborted', () => fail(badRequest('incomplete request body')));
    req.pipe(parser);
  });
}
