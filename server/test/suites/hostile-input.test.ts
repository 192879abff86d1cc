import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createApp, createOwner, dashboardTokenFor, installWithToken, type Owner } from '../harness/fixtures';
import { startTestServer, type TestServer } from '../harness/server';

/**
 * Hostile input on the commerce and claim writes (D2, D3, D6): each answers 400 in the D2 shape, with
 * `issues` naming the field, and writes nothing.
 */
const ORDER = {
  sourceOrderNumber: '#1',
  currency: 'USD',
  platformId: 'api',
  total: 10,
  sourceCreatedAt: '2026-01-01T00:00:00Z',
};
const LONG = 'x'.repeat(256);

/** [name, method, path, raw JSON body, the issue path or message fragment that must appear] */
const CASES: [string, string, string, string, string][] = [
  ['an order id over 255 characters', 'PUT', `/v1/orders/${LONG}`, JSON.stringify(ORDER), 'params.sourceOrderId'],
  [
    'an amount of 1e309',
    'PUT',
    '/v1/orders/h-1',
    JSON.stringify(ORDER).replace('"total":10', '"total":1e309'),
    'body.total',
  ],
  ['a negative amount', 'PUT', '/v1/orders/h-1', JSON.stringify({ ...ORDER, premiumPaid: -1 }), 'body.premiumPaid'],
  // Valid ISO 8601 that PostgreSQL cannot store or D6 cannot render: refused, never a 500.
  [
    'a timestamp in year 0',
    'PUT',
    '/v1/orders/h-1',
    JSON.stringify({ ...ORDER, sourceCreatedAt: '0000-01-01T00:00:00Z' }),
    'body.sourceCreatedAt',
  ],
  [
    'an offset beyond 14 hours',
    'PUT',
    '/v1/orders/h-1',
    JSON.stringify({ ...ORDER, sourceUpdatedAt: '2026-01-01T00:00:00+99:99' }),
    'body.sourceUpdatedAt',
  ],
  [
    'a timestamp past year 9999 in UTC',
    'PUT',
    '/v1/orders/h-1',
    JSON.stringify({ ...ORDER, sourceCancelledAt: '9999-12-31T23:59:59-14:00' }),
    'body.sourceCancelledAt',
  ],
  [
    'a fulfillment timestamp in year 0',
    'PUT',
    '/v1/orders/h-base/fulfillments/f',
    JSON.stringify({ fulfillmentStatus: 'FULFILLED', updatedAt: '0000-06-01T00:00:00Z' }),
    'body.updatedAt',
  ],
  [
    'a line item price of -0.01',
    'PUT',
    '/v1/orders/h-1',
    JSON.stringify({ ...ORDER, lineItems: [{ sourceItemId: 'a', quantity: 1, price: -0.01 }] }),
    'body.lineItems.0.price',
  ],
  [
    'a non-ISO timestamp',
    'PUT',
    '/v1/orders/h-1',
    JSON.stringify({ ...ORDER, sourceCreatedAt: '01/02/2026' }),
    'body.sourceCreatedAt',
  ],
  [
    'a date without time',
    'PUT',
    '/v1/orders/h-1',
    JSON.stringify({ ...ORDER, policyCancelledAt: '2026-01-01' }),
    'body.policyCancelledAt',
  ],
  ['an unknown currency', 'PUT', '/v1/orders/h-1', JSON.stringify({ ...ORDER, currency: 'XYZ' }), 'body.currency'],
  // D47: every request string and array is bounded. A date-time over 64 characters (a valid
  // ISO 8601 one, with 60 digits of a second) and a 101st tracking number are refused.
  [
    'a timestamp over 64 characters',
    'PUT',
    '/v1/orders/h-1',
    JSON.stringify({ ...ORDER, sourceCreatedAt: `2026-01-01T00:00:00.${'1'.repeat(60)}Z` }),
    'body.sourceCreatedAt',
  ],
  [
    'a fulfillment with 101 tracking numbers',
    'PUT',
    '/v1/orders/h-base/fulfillments/f',
    JSON.stringify({ fulfillmentStatus: 'FULFILLED', trackingNumber: Array.from({ length: 101 }, (_, i) => `T${i}`) }),
    'body.trackingNumber',
  ],
  ['a lower-case currency', 'PUT', '/v1/orders/h-1', JSON.stringify({ ...ORDER, currency: 'usd' }), 'body.currency'],
  ['an unknown property', 'PUT', '/v1/orders/h-1', JSON.stringify({ ...ORDER, storeId: 'st_other' }), 'storeId'],
  [
    'a __proto__ key',
    'PUT',
    '/v1/orders/h-1',
    `{"__proto__":{"total":1},${JSON.stringify(ORDER).slice(1)}`,
    '__proto__',
  ],
  [
    'a constructor key',
    'PUT',
    '/v1/orders/h-1',
    JSON.stringify({ ...ORDER, constructor: { prototype: { x: 1 } } }),
    'constructor',
  ],
  [
    'duplicate line item ids',
    'PUT',
    '/v1/orders/h-1',
    JSON.stringify({
      ...ORDER,
      lineItems: [
        { sourceItemId: 'a', quantity: 1 },
        { sourceItemId: 'a', quantity: 2 },
      ],
    }),
    'body.lineItems.1.sourceItemId',
  ],
  [
    'a fractional quantity',
    'PUT',
    '/v1/orders/h-1',
    JSON.stringify({ ...ORDER, lineItems: [{ sourceItemId: 'a', quantity: 1.5 }] }),
    'body.lineItems.0.quantity',
  ],
  [
    'a fulfillment id over 255 characters',
    'PUT',
    `/v1/orders/h-base/fulfillments/${LONG}`,
    JSON.stringify({ fulfillmentStatus: 'FULFILLED' }),
    'params.sourceFulfillmentId',
  ],
  [
    'a fulfillment timestamp that is not ISO',
    'PUT',
    '/v1/orders/h-base/fulfillments/f',
    JSON.stringify({ fulfillmentStatus: 'FULFILLED', createdAt: 'yesterday' }),
    'body.createdAt',
  ],
  [
    'a fulfillment __proto__ key',
    'PUT',
    '/v1/orders/h-base/fulfillments/f',
    '{"fulfillmentStatus":"FULFILLED","__proto__":{"x":1}}',
    '__proto__',
  ],
  [
    'a tracking URL that is not http',
    'PUT',
    '/v1/orders/h-base/fulfillments/f',
    JSON.stringify({ fulfillmentStatus: 'FULFILLED', trackingUrl: ['javascript:alert(1)'] }),
    'body.trackingUrl.0',
  ],
  ['a product price of 1e309', 'PUT', '/v2/products/h-p', '{"name":"P","price":1e309}', 'body.price'],
  ['a negative product tax', 'PUT', '/v2/products/h-p', JSON.stringify({ name: 'P', tax: -2 }), 'body.tax'],
  [
    'an unknown product type',
    'PUT',
    '/v2/products/h-p',
    JSON.stringify({ name: 'P', productType: 'BUNDLE' }),
    'body.productType',
  ],
  [
    'a product id over 255 characters',
    'PUT',
    `/v2/products/${LONG}`,
    JSON.stringify({ name: 'P' }),
    'params.productId',
  ],
  [
    'a child id over 255 characters',
    'POST',
    '/v2/products/h-parent/children',
    JSON.stringify({ productId: LONG, name: 'C' }),
    'body.productId',
  ],
  [
    'a negative child inventory',
    'POST',
    '/v2/products/h-parent/children',
    JSON.stringify({ productId: 'c', name: 'C', inventoryQuantity: -1 }),
    'body.inventoryQuantity',
  ],
  [
    'a child __proto__ key',
    'POST',
    '/v2/products/h-parent/children',
    '{"productId":"c","name":"C","__proto__":{"parentProductId":"x"}}',
    '__proto__',
  ],
  [
    'a bundle/remove of a string',
    'DELETE',
    '/v2/products/h-parent/bundle/remove',
    JSON.stringify({ productIds: 'c' }),
    'body.productIds',
  ],
  // Claims (D22-D26): the order h-base and the claim clm_hostile exist.
  ...claimCases(),
];

function claimCases(): [string, string, string, string, string][] {
  const CLAIM = {
    email: 'h@example.com',
    salesChannel: 'ONLINE',
    claimCategory: 'SHIPPING',
    fulfillmentIssues: [{ issues: [{ issueType: 'DAMAGED', quantity: 1 }] }],
    resolution: { desiredMethod: 'RESHIP' },
  };
  const issue = (extra: Record<string, unknown>) =>
    JSON.stringify({ ...CLAIM, fulfillmentIssues: [{ issues: [{ issueType: 'DAMAGED', quantity: 1, ...extra }] }] });
  const OFFLINE = {
    customer: { email: 'h@example.com' },
    items: [{ name: 'Item' }],
    warranty: { dateOfPurchase: '2026-01-01' },
    salesChannel: 'IN_STORE',
    claimCategory: 'WARRANTY',
  };
  const file = '/v1/claims/h-base';
  const claim = '/v1/claims/clm_hostile';
  return [
    ['a claimed quantity of 0', 'POST', file, issue({ quantity: 0 }), 'body.fulfillmentIssues.0.issues.0.quantity'],
    [
      'a claimed quantity of 1e309',
      'POST',
      file,
      issue({}).replace('"quantity":1', '"quantity":1e309'),
      'body.fulfillmentIssues.0.issues.0.quantity',
    ],
    [
      'an image URL that is not http',
      'POST',
      file,
      issue({ images: ['javascript:alert(1)'] }),
      'body.fulfillmentIssues.0.issues.0.images.0',
    ],
    [
      'a signature that is not a URL',
      'POST',
      file,
      JSON.stringify({ ...CLAIM, resolution: { desiredMethod: 'RESHIP', customerSignature: 'my name' } }),
      'body.resolution.customerSignature',
    ],
    [
      '101 fulfillment issues',
      'POST',
      file,
      JSON.stringify({ ...CLAIM, fulfillmentIssues: Array.from({ length: 101 }, () => CLAIM.fulfillmentIssues[0]) }),
      'body.fulfillmentIssues',
    ],
    [
      'a claim __proto__ key',
      'POST',
      file,
      `{"__proto__":{"claimState":"APPROVED"},${JSON.stringify(CLAIM).slice(1)}`,
      '__proto__',
    ],
    ['a claim storeId property', 'POST', file, JSON.stringify({ ...CLAIM, storeId: 'st_other' }), 'storeId'],
    [
      'an offline storeId of another store',
      'POST',
      '/v1/claims/offline',
      JSON.stringify({ ...OFFLINE, storeId: 'st_someone_else' }),
      'body.storeId',
    ],
    [
      'an offline latitude of 91',
      'POST',
      '/v1/claims/offline',
      JSON.stringify({ ...OFFLINE, shippingAddress: { lat: 91 } }),
      'body.shippingAddress.lat',
    ],
    [
      'an offline purchase in year 0',
      'POST',
      '/v1/claims/offline',
      JSON.stringify({ ...OFFLINE, warranty: { dateOfPurchase: '0000-01-01' } }),
      'body.warranty.dateOfPurchase',
    ],
    [
      'an offline purchase past 9999 in UTC',
      'POST',
      '/v1/claims/offline',
      JSON.stringify({ ...OFFLINE, warranty: { dateOfPurchase: '9999-12-31T23:00:00-14:00' } }),
      'body.warranty.dateOfPurchase',
    ],
    [
      'an offline item price of -1',
      'POST',
      '/v1/claims/offline',
      JSON.stringify({ ...OFFLINE, items: [{ price: -1 }] }),
      'body.items.0.price',
    ],
    [
      'a message over 10,000 characters',
      'POST',
      `${claim}/messages`,
      JSON.stringify({ message: 'x'.repeat(10_001), senderType: 'brand' }),
      'body.message',
    ],
    [
      'a media URL that is not http',
      'POST',
      `${claim}/messages`,
      JSON.stringify({ message: 'm', senderType: 'brand', medias: ['file:///etc/passwd'] }),
      'body.medias.0',
    ],
    [
      'a paid value of 1e309',
      'POST',
      `${claim}/approve`,
      '{"resolutions":[{"type":"REFUND","paidValue":1e309}]}',
      'body.resolutions.0.paidValue',
    ],
    [
      '101 resolutions',
      'POST',
      `${claim}/approve`,
      JSON.stringify({ resolutions: Array.from({ length: 101 }, () => ({ type: 'RESHIP' })) }),
      'body.resolutions',
    ],
    [
      'a transition to APPROVED (approve carries the details, D36)',
      'POST',
      `${claim}/transition`,
      JSON.stringify({ claimState: 'APPROVED' }),
      'body.claimState',
    ],
    ['an unknown deny reason', 'POST', `${claim}/deny`, JSON.stringify({ reason: 'BECAUSE' }), 'body.reason'],
    ['a claim id over 255 characters', 'GET', `/v1/claims/${LONG}`, '', 'params.claimId'],
    ['a list page of 251', 'GET', '/v1/claims?first=251', '', 'query.first'],
    ['a list filter in year 0', 'GET', '/v1/claims?createdAtMin=0000-01-01T00:00:00Z', '', 'query.createdAtMin'],
  ];
}

describe('hostile input on orders, fulfillments, products and claims', () => {
  let server: TestServer;
  let owner: Owner;
  let token: string;
  let snapshot: () => Promise<unknown>;

  beforeAll(async () => {
    server = await startTestServer({}, { rateLimits: { token: 1e9 } });
    owner = await createOwner(server.db, 'hostile');
    const scopes = ['order:update', 'product:update', 'claim:manage'] as const;
    const app = await createApp(server, owner.user.id, { requestedScopes: [...scopes] });
    token = (await installWithToken(server, app.clientId, owner.store.id, [...scopes])).accessToken;
    await server.request('/v1/orders/h-base', { method: 'PUT', headers: bearer(token), json: ORDER });
    await server.request('/v2/products/h-parent', { method: 'PUT', headers: bearer(token), json: { name: 'Parent' } });
    await sql`
      insert into claims (id, store_id, order_id, source_order_id, claim_category, sales_channel)
      select 'clm_hostile', store_id, id, source_order_id, 'SHIPPING', 'ONLINE' from orders where source_order_id = 'h-base'
    `.execute(server.db);
    snapshot = async () =>
      (
        await sql<{ rows: unknown }>`
          select json_build_array(
            (select json_agg(o order by id) from orders o),
            (select json_agg(li order by order_id, source_item_id) from order_line_items li),
            (select json_agg(p order by id) from protection_policies p),
            (select json_agg(f order by order_id, source_fulfillment_id) from fulfillments f),
            (select json_agg(p order by product_id) from products p),
            (select json_agg(c order by id) from claims c),
            (select count(*) from claim_items),
            (select count(*) from claim_messages),
            (select count(*) from claim_resolutions),
            (select count(*) from webhook_events)
          ) as rows`.execute(server.db)
      ).rows[0]!.rows;
  });
  afterAll(async () => {
    await server.close();
  });

  it.each(CASES)('%s answers 400 naming it and writes nothing', async (_name, method, path, body, field) => {
    const before = await snapshot();
    const res = await server.request(path, {
      method,
      headers: { ...bearer(token), 'content-type': 'application/json' },
      ...(method === 'GET' ? {} : { body }),
    });
    expect(res.status).toBe(400);
    const err = (await res.json()) as {
      statusCode: number;
      error: string;
      message: string;
      issues: { path: string; message: string }[];
    };
    expect(err).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    expect(
      err.issues.some((i) => i.path === field || i.path.startsWith(`${field}.`) || i.message.includes(field)),
    ).toBe(true);
    expect(await snapshot()).toEqual(before);
  });
});

/** Hostile input on the staff routes (D49): 400 in the D2 shape naming the field, and nothing changed. */
describe('hostile input on the password and staff-token routes', () => {
  let server: TestServer;
  let owner: Owner;
  let dash: string;
  const NEW = 'a new long password';
  /** [name, path, raw JSON body, the issue path that must appear] */
  const cases = (current: () => string): [string, string, () => string, string][] => [
    ['no current password', '/v1/auth/password', () => JSON.stringify({ newPassword: NEW }), 'body.currentPassword'],
    [
      'a new password of 11 characters',
      '/v1/auth/password',
      () => JSON.stringify({ currentPassword: current(), newPassword: '12345678901' }),
      'body.newPassword',
    ],
    [
      'a new password over 1,024 characters',
      '/v1/auth/password',
      () => JSON.stringify({ currentPassword: current(), newPassword: 'x'.repeat(1025) }),
      'body.newPassword',
    ],
    [
      'a new password that is a number',
      '/v1/auth/password',
      () => `{"currentPassword":${JSON.stringify(current())},"newPassword":123456789012345}`,
      'body.newPassword',
    ],
    [
      'an unknown property',
      '/v1/auth/password',
      () => JSON.stringify({ currentPassword: current(), newPassword: NEW, userId: 'usr_other' }),
      'userId',
    ],
    [
      'a __proto__ key',
      '/v1/auth/password',
      () => `{"__proto__":{"admin":true},"currentPassword":${JSON.stringify(current())},"newPassword":"${NEW}"}`,
      '__proto__',
    ],
    [
      'a wrong current password',
      '/v1/auth/password',
      () => JSON.stringify({ currentPassword: `${current()}x`, newPassword: NEW }),
      'body.currentPassword',
    ],
    ['a store id over 255 characters', `/v1/stores/${LONG}/staff-tokens`, () => '', 'params.storeId'],
  ];

  beforeAll(async () => {
    server = await startTestServer();
    owner = await createOwner(server.db, 'hostile-staff');
    dash = await dashboardTokenFor(server, owner.user.id);
  });
  afterAll(async () => {
    await server.close();
  });

  const snapshot = async () =>
    (
      await sql<{ rows: unknown }>`
        select json_build_array(
          (select json_agg(u order by id) from dashboard_users u),
          (select json_agg(g order by id) from grants g),
          (select json_agg(m order by store_id, user_id) from store_members m),
          (select count(*) from revocations)
        ) as rows`.execute(server.db)
    ).rows[0]!.rows;

  it.each(cases(() => owner.password))(
    '%s answers 400 naming it and changes nothing',
    async (_name, path, body, field) => {
      const before = await snapshot();
      const raw = body();
      const res = await server.request(path, {
        method: 'POST',
        headers: { ...bearer(dash), ...(raw ? { 'content-type': 'application/json' } : {}) },
        ...(raw ? { body: raw } : {}),
      });
      expect(res.status).toBe(400);
      const err = (await res.json()) as {
        statusCode: number;
        error: string;
        issues: { path: string; message: string }[];
      };
      expect(err).toMatchObject({ statusCode: 400, error: 'Bad Request' });
      expect(
        err.issues.some((i) => i.path === field || i.path.startsWith(`${field}.`) || i.message.includes(field)),
      ).toBe(true);
      expect(await snapshot()).toEqual(before);
    },
  );
});
