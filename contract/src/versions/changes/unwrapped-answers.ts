import { z } from 'zod';
import { isRouteMeta } from '../../meta';
import { type Answer, isVersionedRoute, type VersionChange } from '../change';

const isSuccess = (status: number) => status >= 200 && status < 300;

/** D1 in reverse: 2025-01-01 answers the authenticated `/v2` routes without the `{data}` envelope. */
export const unwrappedAnswers: VersionChange = {
  id: 'unwrapped-answers',
  version: '2025-01-01',
  title: 'Authenticated /v2 answers are not wrapped in `data`',
  description:
    'Success answers of the `/v2` routes called with an access token are the resource itself, not `{"data": …}`. Deleting the partner context answers `{"ok": true}`.',
  why: 'The envelope leaves room for fields beside the resource (paging, warnings) without changing the resource itself.',
  upgrade: 'Read the resource from the `data` field of every `/v2` success answer.',
  route(_key, route) {
    // Only `/v2`: the `/v1` routes that answer `{data}` (D51) came later and answer it in every version.
    if (!isVersionedRoute(route) || !isRouteMeta(route.metadata) || route.metadata.body !== 'data') return undefined;
    if (!route.path.startsWith('/v2/')) return undefined;
    const responses: Record<number, z.ZodTypeAny> = {};
    for (const [status, schema] of Object.entries(route.responses)) {
      if (!isSuccess(Number(status)) || !(schema instanceof z.ZodObject)) continue;
      const inner = (schema.shape as Record<string, z.ZodTypeAny>).data;
      if (inner) responses[Number(status)] = inner;
    }
    return {
      metadata: { body: 'plain' },
      description: (newer) => newer.replace(' Wrapped in `data`.', '').replace('{data:{ok:true}}', '{ok:true}'),
      responses,
      down: (answer: Answer): Answer =>
        isSuccess(answer.status) && typeof answer.body === 'object' && answer.body !== null && 'data' in answer.body
          ? { status: answer.status, body: (answer.body as { data: unknown }).data }
          : answer,
    };
  },
};
