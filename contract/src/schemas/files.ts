import { z } from 'zod';

/**
 * Files (D56): photos and receipts a claim or message carries, uploaded as multipart and
 * served only through a capability link or the content route.
 */

/** The one purpose a file has today. */
export const FILE_PURPOSES = ['claim_evidence'] as const;
export const ZFilePurpose = z.enum(FILE_PURPOSES);

/** What a file is, as its bytes say (never its declared type or name). */
export const FILE_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'application/pdf'] as const;
export const ZFileType = z.enum(FILE_TYPES);
export type TFileType = z.infer<typeof ZFileType>;

/** D56: the largest upload, 10 MiB, and the most pixels a photo may have. */
export const FILE_MAX_BYTES = 10 * 1024 * 1024;
export const FILE_MAX_PIXELS = 40_000_000;

/**
 * A file part of a multipart body: a `Blob` (a `File` is one) as a client sends it and as the
 * server's multipart reader hands it to the route, already within the limits. The SDK's types
 * name it `Blob` (scripts/sdk-types.ts knows this schema by identity).
 */
export const ZBlob = z
  .instanceof(Blob, { message: 'a file part is required' })
  .describe('The file: a JPEG, PNG, WebP or HEIC photo, or a PDF, at most 10 MiB');

/** A stored file's bytes as the SDK hands them back: a `Blob` (D56). */
export const ZFileBytes = z.instanceof(Blob).describe("The stored bytes, of the file's type");

/** The upload: one file part and its `purpose`. */
export const ZFileUpload = z
  .object({
    file: ZBlob,
    purpose: ZFilePurpose.describe('`claim_evidence`'),
  })
  .strict();

export const ZFile = z
  .object({
    id: z.string().describe('`file_…`'),
    purpose: ZFilePurpose,
    type: ZFileType.describe('The stored type: HEIC photos are stored as JPEG'),
    size: z.number().int().describe('Bytes stored'),
    sha256: z.string().describe('Hex SHA-256 of the bytes stored'),
    width: z.number().int().nullable().describe('Pixels; null for a PDF'),
    height: z.number().int().nullable().describe('Pixels; null for a PDF'),
    url: z
      .string()
      .describe("Capability link to the bytes: may stand in a claim item's `images` and a message's `medias`"),
    createdAt: z.string().datetime({ offset: true }),
  })
  .strict();
export type TFile = z.infer<typeof ZFile>;
