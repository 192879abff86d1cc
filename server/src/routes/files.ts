import type { Contract } from '@protection-service/contract';
import type { Response } from 'express';
import { type FileContent, storeFileContent, uploadFile } from '../domain/files/files';
import { storeOf } from '../http/caller';
import { uploadedBytes } from '../http/multipart';
import type { GroupHandlers, RouteContext } from './context';

/** Files (D56): uploads of claim evidence, and their bytes for the store's own callers. */
export function fileHandlers({ db, fileStorage, fileLinks }: RouteContext): GroupHandlers<Contract['files']> {
  return {
    async upload({ body, req }) {
      const file = await uploadFile(db, fileStorage, fileLinks, storeOf(req), {
        // The bytes the multipart reader holds, not a copy of them (D56).
        bytes: uploadedBytes(body.file) ?? Buffer.from(await body.file.arrayBuffer()),
        purpose: body.purpose,
      });
      return { status: 201, body: { data: file } };
    },
    async content({ params, req, res }) {
      const content = await storeFileContent(db, fileStorage, storeOf(req), params.fileId);
      fileHeaders(res, content);
      // The status is sent already: a storage failure mid-way cuts the connection (a short body).
      content.body.on('error', () => res.destroy());
      return { status: 200, body: content.body as never };
    },
  };
}

/**
 * D56: how a stored file is served, through the content route and its capability link alike:
 * the type found in its bytes, never sniffed again by the browser, nothing it can run, cached
 * privately for an hour, a PDF as an attachment.
 */
export function fileHeaders(res: Response, content: FileContent): void {
  res.setHeader('content-type', content.type);
  res.setHeader('content-length', String(content.size));
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('cache-control', 'private, max-age=3600');
  res.setHeader('content-security-policy', "default-src 'none'");
  if (content.type === 'application/pdf') {
    res.setHeader('content-disposition', `attachment; filename="${content.id}.pdf"`);
  }
}
