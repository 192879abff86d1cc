import { FILE_MAX_BYTES } from '@protection-service/contract';
import busboy from 'busboy';
import type { Request } from 'express';
import { SNIFF_BYTES, sniffType } from '../../lib/file-types';

/**
 * The multipart bodies of the shopper's pages (D56): the claim form sent without a script
 * (its fields and the photos chosen), a photo uploaded as it is chosen, and "Add photos" on
 * the claim page. Each file is kept in memory up to the 10 MiB limit and no further; a file
 * over it, or whose first bytes are of no accepted type, is dropped as it arrives (the rest of
 * it is read and thrown away) and named in `refused`, so the page answers in words with what
 * was typed kept. Files a browser sends empty (a file field left unchosen) are left out.
 */
export interface PageUpload {
  field: string;
  name: string;
  bytes: Buffer;
}

export interface PageBody {
  fields: Record<string, string[]>;
  files: PageUpload[];
  /** The first file refused while reading, and why (413 too large, 415 not a type accepted). */
  refused?: { status: 413 | 415; name: string };
  /** The body broke the form's limits (too many files or fields): nothing of it is used. */
  broken?: string;
}

/** What a page's body may hold beyond the files' bytes: the fields and the parts' headers. */
const FORM_OVERHEAD = 256 * 1024;

/** Whether a stated body length can fit `maxFiles` files of the limit and the form around them. */
export function fitsStatedLength(req: Request, maxFiles: number): boolean {
  const stated = Number(req.headers['content-length']);
  return !(stated > maxFiles * FILE_MAX_BYTES + FORM_OVERHEAD);
}

export function readPageBody(req: Request, maxFiles: number, maxFields: number): Promise<PageBody> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        limits: {
          files: maxFiles,
          fileSize: FILE_MAX_BYTES,
          fields: maxFields,
          fieldSize: 16 * 1024,
          parts: maxFiles + maxFields,
        },
      });
    } catch {
      resolve({ fields: {}, files: [], broken: 'The form could not be read. Go back, reload the page and try again.' });
      return;
    }
    const body: PageBody = { fields: Object.create(null) as Record<string, string[]>, files: [] };
    parser.on('file', (field, stream, info) => {
      const name = (info.filename ?? '').slice(0, 200) || 'photo';
      const chunks: Buffer[] = [];
      let received = 0;
      let dropped = false;
      const drop = (status: 413 | 415) => {
        dropped = true;
        chunks.length = 0;
        body.refused ??= { status, name };
      };
      stream.on('data', (chunk: Buffer) => {
        if (dropped) return;
        chunks.push(chunk);
        received += chunk.length;
        if (received >= SNIFF_BYTES && received - chunk.length < SNIFF_BYTES) {
          if (!sniffType(Buffer.concat(chunks).subarray(0, SNIFF_BYTES))) drop(415);
        }
      });
      stream.on('limit', () => drop(413));
      stream.on('end', () => {
        if (dropped || received === 0) return;
        const bytes = Buffer.concat(chunks);
        // A file shorter than the sniffed prefix is judged on what there is.
        if (received < SNIFF_BYTES && !sniffType(bytes)) return drop(415);
        body.files.push({ field, name, bytes });
      });
    });
    parser.on('field', (name, value) => {
      const values = body.fields[name] ?? [];
      values.push(value);
      body.fields[name] = values;
    });
    const broken = (message: string) => {
      body.broken ??= message;
    };
    parser.on('filesLimit', () => broken(`At most ${maxFiles} photos can be sent at once.`));
    parser.on('partsLimit', () => broken('The form has too many parts.'));
    parser.on('fieldsLimit', () => broken('The form has too many fields.'));
    parser.on('error', () => {
      broken('The form could not be read. Go back, reload the page and try again.');
      resolve(body);
    });
    parser.on('close', () => resolve(body));
    req.on('aborted', () => reject(new Error('incomplete request body')));
    req.pipe(parser);
  });
}

/** The first value of a field, trimmed; '' when absent. */
export function one(body: PageBody, name: string): string {
  return (body.fields[name]?.[0] ?? '').trim();
}
