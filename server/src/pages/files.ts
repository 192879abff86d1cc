import { Router } from 'express';
import { type FileLinks, linkedFileContent } from '../domain/files/files';
import type { FileStorage } from '../domain/files/storage';
import { fileHeaders } from '../routes/files';
import { wrap } from './html';

/** D56: a file's capability link, `<PUBLIC_BASE_URL>/files/<id>/<token>`. */
export const FILE_LINK_PATH = '/files/:fileId/:token';

/**
 * The bytes a file link opens, served as the content route serves them; any link that opens
 * no file (malformed, forged, of a deleted file) answers the same bare 404.
 */
export function filePages(db: Parameters<typeof linkedFileContent>[0], storage: FileStorage, links: FileLinks): Router {
  const router = Router();
  router.get(
    FILE_LINK_PATH,
    wrap(async (req, res) => {
      const content = await linkedFileContent(db, storage, links, req.params.fileId ?? '', req.params.token ?? '');
      if (!content) {
        res.status(404).type('text/plain').setHeader('cache-control', 'no-store');
        res.send('Not found');
        return;
      }
      fileHeaders(res, content);
      res.setHeader('referrer-policy', 'no-referrer');
      res.setHeader('x-robots-tag', 'noindex');
      content.body.on('error', () => res.destroy());
      content.body.pipe(res);
    }),
  );
  return router;
}
