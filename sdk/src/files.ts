import type { Client } from './generated/client';

/**
 * The most bytes the service takes in one upload (D56): 10 MiB.
 *
 * @example
 * if (file.size > FILE_MAX_BYTES) throw new Error('photos of at most 10 MiB');
 */
export const FILE_MAX_BYTES = 10 * 1024 * 1024;

/**
 * What `uploadFile` takes: a `Blob` (a `File` from an `<input type="file">` is one), a
 * `Buffer` or any `Uint8Array`, a web `ReadableStream`, or a Node.js stream (any async
 * iterable of bytes, such as `fs.createReadStream(path)`).
 *
 * @example
 * const input: FileInput = await readFile('receipt.pdf');
 * await uploadFile(client, input, { filename: 'receipt.pdf' });
 */
export type FileInput = Blob | Uint8Array | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

/**
 * Uploads a photo or receipt as claim evidence (D56) and answers the call's reply; its `url`
 * may stand in a claim item's `images` or a message's `medias`. A stream is read into memory,
 * and no further than one byte past the limit, which the service then refuses (413).
 *
 * @example
 * import { createReadStream } from 'node:fs';
 * const res = await uploadFile(client, createReadStream('parcel.jpg'), { filename: 'parcel.jpg' });
 * if (res.status === 201) console.log(res.body.data.url);
 */
export async function uploadFile(
  client: Pick<Client, 'files'>,
  input: FileInput,
  options: { filename?: string; fetchOptions?: RequestInit } = {},
): ReturnType<Client['files']['upload']> {
  const blob = await blobOf(input);
  const file = new File([blob], options.filename ?? 'upload', { type: blob.type });
  return client.files.upload({
    body: { file, purpose: 'claim_evidence' },
    ...(options.fetchOptions ? { fetchOptions: options.fetchOptions } : {}),
  });
}

async function blobOf(input: FileInput): Promise<Blob> {
  if (input instanceof Blob) return input;
  if (input instanceof Uint8Array) return new Blob([input as Uint8Array<ArrayBuffer>]);
  const chunks: Uint8Array<ArrayBuffer>[] = [];
  let size = 0;
  const iterable: AsyncIterable<Uint8Array> =
    Symbol.asyncIterator in input ? input : readerChunks(input as ReadableStream<Uint8Array>);
  for await (const chunk of iterable) {
    chunks.push(chunk as Uint8Array<ArrayBuffer>);
    size += chunk.length;
    // Past the limit the service refuses the upload anyway: nothing more is read.
    if (size > FILE_MAX_BYTES) break;
  }
  return new Blob(chunks);
}

async function* readerChunks(stream: ReadableStream<Uint8Array>): AsyncIterable<Uint8Array> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}
