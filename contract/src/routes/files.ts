import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { errors, tokenErrors } from '../errors';
import { routeGroup, routeMeta } from '../meta';
import { data, ZId, ZIdempotencyHeaders } from '../schemas/common';
import { ZFile, ZFileBytes, ZFileUpload } from '../schemas/files';
import { anyOf } from '../scopes';

const c = initContract();
const dataRoute = routeMeta('token', 'data');
const bytesRoute = routeMeta('token', 'bytes');

/** Files (D56): uploads of claim evidence and their bytes. */
export const fileRoutes = routeGroup({
  upload: {
    method: 'POST',
    path: '/v1/files',
    contentType: 'multipart/form-data',
    body: ZFileUpload,
    headers: ZIdempotencyHeaders,
    responses: { 201: data(ZFile), ...tokenErrors, ...errors(409, 413, 415, 422, 503) },
    summary: 'Upload a file',
    description:
      'Takes one `file` (multipart/form-data, with `purpose` = `claim_evidence`): a JPEG, PNG, WebP or HEIC photo or a ' +
      'PDF, known by its bytes (the declared type and name are ignored; anything else answers 415), at most 10 MiB ' +
      '(413) and 40 megapixels (422); a file that does not decode answers 422. Photos are stored re-encoded (HEIC as ' +
      'JPEG), turned upright and without any metadata (no EXIF, no GPS position). Answers the file with `url`, a ' +
      "capability link that may stand in a claim item's `images` or a message's `medias`; a file attached to " +
      'nothing within 24 hours is deleted. While storage cannot be reached, 503 with `Retry-After`. Accepts an ' +
      'Idempotency-Key (D33): a retry with the same bytes answers the first upload. Wrapped in `data`.',
    metadata: dataRoute(anyOf('claim:update', 'claim:manage'), 'D56', ['D46']),
  },
  content: {
    method: 'GET',
    path: '/v1/files/:fileId/content',
    pathParams: z.object({ fileId: ZId }),
    responses: {
      200: c.otherResponse({ contentType: 'application/octet-stream', body: ZFileBytes }),
      ...tokenErrors,
      ...errors(503),
    },
    summary: "A file's bytes",
    description:
      "The stored bytes of one of the store's files, with the type found in them, `X-Content-Type-Options: nosniff`, " +
      "`Cache-Control: private, max-age=3600` and `Content-Security-Policy: default-src 'none'`; a PDF as an " +
      "attachment. Another store's file answers 404 (D7).",
    metadata: bytesRoute(anyOf('claim:read', 'claim:update', 'claim:manage'), 'D56'),
  },
});
