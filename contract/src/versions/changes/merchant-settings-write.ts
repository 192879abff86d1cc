import { z } from 'zod';
import { tokenErrors, ZError } from '../../errors';
import { routeMeta } from '../../meta';
import { noScope } from '../../scopes';
import type { VersionChange } from '../change';

/** The one answer of `PUT /v2/settings` on 2025-01-01. */
export const MERCHANT_SETTINGS_GONE =
  'partners no longer write merchant default settings: override them in the partner context (PATCH /v2/settings/context/{contextId})';

/** The earlier revision's write of merchant defaults: answered 410 on 2025-01-01, absent later. */
export const merchantSettingsWrite: VersionChange = {
  id: 'merchant-settings-write',
  version: '2025-01-01',
  title: '`PUT /v2/settings` answers 410 Gone',
  description:
    '`PUT /v2/settings` exists and answers `410 Gone` (in the error shape) to any authenticated call: partners no longer write merchant defaults. In later versions the path has no `PUT` at all.',
  why: 'Merchant defaults belong to the merchant; each app overrides them in its own partner context.',
  upgrade: 'Write overrides with `PATCH /v2/settings/context/{contextId}`.',
  addedRoutes: {
    'settings.replace': {
      route: {
        method: 'PUT',
        path: '/v2/settings',
        body: z.unknown().describe('Ignored: the route answers 410'),
        responses: { 410: ZError, ...tokenErrors },
        summary: 'Write the merchant default settings (gone)',
        description: `Answers 410: ${MERCHANT_SETTINGS_GONE}.`,
        metadata: routeMeta('token', 'plain')(noScope, 'spec', ['D44']),
        strictStatusCodes: true,
      } as never,
      refuse: { status: 410, message: MERCHANT_SETTINGS_GONE },
    },
  },
};
