import { z } from 'zod';
import { tokenErrors } from '../errors';
import { routeGroup, routeMeta } from '../meta';
import { data, ZId } from '../schemas/common';
import { ZWidgetConfig, ZWidgetConfigUpdateBody } from '../schemas/widgets';

const tokenRoute = routeMeta('token', 'data');

/** Merchant default widget configs (spec "Widget config (v2, merchant defaults)"). */
export const widgetRoutes = routeGroup({
  list: {
    method: 'GET',
    path: '/v2/widget/config',
    responses: { 200: data(z.array(ZWidgetConfig)), ...tokenErrors },
    summary: 'List merchant widget configs',
    description:
      'The configs of the widget types the token can read; others are silently filtered out. Each store starts with one config per type (D30).',
    metadata: tokenRoute(
      { kind: 'perType', family: 'widget', action: 'read', onMissing: 'filter', note: 'list filtered by type' },
      'spec',
      ['D30'],
    ),
  },
  update: {
    method: 'PUT',
    path: '/v2/widget/config/:widgetConfigId',
    pathParams: z.object({ widgetConfigId: ZId }),
    body: ZWidgetConfigUpdateBody,
    responses: { 200: data(ZWidgetConfig), ...tokenErrors },
    summary: 'Update a merchant widget config',
    description:
      'Sets status, variant, name or config; omitted fields keep their values and customizationValues is read-only (rejected). 404 when the type is not writable by the token.',
    metadata: tokenRoute(
      { kind: 'perType', family: 'widget', action: 'update', onMissing: '404', note: '404 when missing' },
      'spec',
    ),
  },
});
