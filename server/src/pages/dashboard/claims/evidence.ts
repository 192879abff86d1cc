import { FILE_TYPES } from '@protection-service/contract';
import type { FetchMiddleware, TClaim, TFile } from '@protection-service/sdk';
import type { Dashboard, StorePage } from '../handlers';

/**
 * The photos and receipts a claim names (D56, D57): in its items' `images` and its messages'
 * `medias`. Those that are this service's own file links are shown at once, from the link
 * itself (it serves the stored bytes with the content route's headers); any other address is
 * the shopper's or a partner's host, loaded only when a person asks ("Show photos").
 */

/** The service's own files a claim names, by URL: the stored type, or null when it cannot be read. */
export type OwnFiles = ReadonlyMap<string, TFile['type'] | null>;

/** A file link's path: `/files/<id>/<random half><MAC>` (D56, built as D41's links). */
const FILE_LINK_PATH = /^\/files\/(file_[a-z2-7]{24})\/[0-9a-f]{64}[A-Za-z0-9_-]{22}$/;

/**
 * The file a URL names when it is one of this service's file links: on the service's public
 * origin (`PUBLIC_BASE_URL`, `http:` in a development install) with a file link's path. A
 * link's path on another host is that host's address, never taken for the service's own.
 */
export function ownFileId(url: string, publicOrigin: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.origin !== publicOrigin || parsed.search || parsed.hash || parsed.username) return undefined;
  return FILE_LINK_PATH.exec(parsed.pathname)?.[1];
}

/** Every URL the claim names as evidence: its items' photos, then its messages' media. */
export function evidenceUrls(claim: Pick<TClaim, 'claimItems' | 'claimMessages'>): string[] {
  return [...claim.claimItems.flatMap((i) => i.images), ...claim.claimMessages.flatMap((m) => m.medias)];
}

/**
 * An answer's headers without its body: the type of a stored file is in the content route's
 * `Content-Type`, and its bytes are the browser's to fetch, through the file link.
 */
const headersOnly: FetchMiddleware = (next) => async (url, init) => {
  const answer = await next(url, init);
  if (!answer.ok) return answer;
  await answer.body?.cancel().catch(() => {});
  return new Response(null, { status: answer.status, headers: answer.headers });
};

/**
 * The type of each of the service's own files the claim names, read through the API's content
 * route (`GET /v1/files/:fileId/content`, the claim read group) with the person's staff
 * token, headers only, for the claim and those whose photos it is shown beside (D57): a photo is shown as a thumbnail, a PDF as a link, and a file the role
 * cannot read or that is gone (404) as neither.
 */
export async function readOwnFiles(
  dashboard: Dashboard,
  page: StorePage,
  claims: readonly TClaim[],
): Promise<OwnFiles> {
  const { publicOrigin } = dashboard.port;
  const own = new Map<string, string>();
  for (const url of claims.flatMap(evidenceUrls)) {
    const fileId = ownFileId(url, publicOrigin);
    if (fileId) own.set(url, fileId);
  }
  if (own.size === 0) return new Map();
  const api = await dashboard.staff.open(page.req, page.session, page.store, [headersOnly]);
  const types = await Promise.all(
    [...own].map(async ([url, fileId]) => {
      const res = api ? await api.client.files.content({ params: { fileId } }) : undefined;
      const type = res?.status === 200 ? res.headers.get('content-type') : null;
      return [url, isFileType(type) ? type : null] as const;
    }),
  );
  return new Map(types);
}

function isFileType(type: string | null | undefined): type is TFile['type'] {
  return type != null && (FILE_TYPES as readonly string[]).includes(type);
}

/** The other claims a reused photo is shown beside, at most this many (D57). */
const REUSED_SHOWN = 3;

/**
 * D57: the store's other claims where a photo of this one was also sent (`photo_reused`), read
 * through the API to show their photos beside this claim's; one the role cannot read, or
 * that is gone, is left out.
 */
export async function readReusedPhotoClaims(api: StorePage['api'], claim: TClaim): Promise<TClaim[]> {
  const ids = claim.risk.signals
    .filter((s) => s.code === 'photo_reused')
    .flatMap((s) => s.relatedClaimIds)
    .filter((id, i, all) => id !== claim.id && all.indexOf(id) === i)
    .slice(0, REUSED_SHOWN);
  const read = await Promise.all(ids.map((claimId) => api.client.claims.get({ params: { claimId } })));
  return read.flatMap((res) => (res.status === 200 ? [res.body] : []));
}
