import { z } from 'zod';
import { ROLES } from '../scopes';
import { ZApiVersion } from '../versions/list';
import { connection, ZDeleted, ZEmail, ZId, ZName, ZPageQuery, ZTimestamp, ZUrl } from './common';
import {
  ZAccessToken,
  ZClientId,
  ZClientSecret,
  ZGrantedScopes,
  ZScopeList,
  ZStoreSummary,
  ZTestClientSecret,
} from './oauth';
import {
  WEBHOOK_BODY_SCHEMAS,
  WEBHOOK_TOPICS,
  type WebhookTopic,
  ZWebhookEventId,
  ZWebhookSecret,
  ZWebhookTopic,
} from './webhooks';

/**
 * Dashboard identity (D8), app registration (D9), installations (D14), session-token minting
 * (D15) and the app's webhook event log (D34).
 */

// ---------------------------------------------------------------------------------------------
// Dashboard login and refresh (D8).

export const DASHBOARD_REFRESH_TOKEN_PREFIX = 'svc_drt_';

export const ZLoginRequest = z
  .object({
    email: ZEmail,
    password: z.string().min(1).max(1024),
  })
  .strict();
export type TLoginRequest = z.infer<typeof ZLoginRequest>;

export const ZRefreshRequest = z
  .object({
    refreshToken: z.string().min(1).max(512).describe('The latest dashboard refresh token `svc_drt_…` (D8, D12)'),
  })
  .strict();
export type TRefreshRequest = z.infer<typeof ZRefreshRequest>;

/**
 * Dashboard tokens (D8). The access token is the dashboard user JWT the dashboard routes take;
 * it is not an app token and is refused where an `svc_at_` token is due (D16). The refresh
 * token is opaque with the prefix `svc_drt_` (this contract's choice; the spec names none) and
 * rotates like the OAuth refresh (D12).
 */
export const ZDashboardTokens = z
  .object({
    access_token: z.string().min(1).max(4096).describe('Dashboard user JWT'),
    refresh_token: z
      .string()
      .startsWith(DASHBOARD_REFRESH_TOKEN_PREFIX)
      .max(512)
      .describe('Dashboard refresh token `svc_drt_…`'),
    expires_in: z.number().int().positive().describe('Seconds until the access token expires'),
    token_type: z.literal('Bearer'),
  })
  .strict();
export type TDashboardTokens = z.infer<typeof ZDashboardTokens>;

export const ZRole = z.enum(ROLES).describe("A store member's role (D49): owner, admin, agent or viewer");
/** A store of the signed-in user: what they may do there (D49) and whether it is a test store (D45). */
export const ZMemberStore = ZStoreSummary.extend({
  role: ZRole,
  livemode: z.boolean().describe('false for a test store (D45)'),
}).strict();
export type TMemberStore = z.infer<typeof ZMemberStore>;

export const ZDashboardUser = z
  .object({
    id: ZId,
    email: ZEmail,
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
    stores: z.array(ZMemberStore).describe('The stores the user belongs to (D8), with their role in each (D49)'),
  })
  .strict();
export type TDashboardUser = z.infer<typeof ZDashboardUser>;

/** Login answer: the tokens plus the user (D8). */
export const ZLoginResponse = ZDashboardTokens.extend({ user: ZDashboardUser }).strict();
export type TLoginResponse = z.infer<typeof ZLoginResponse>;

// ---------------------------------------------------------------------------------------------
// Staff (D49): a member's role, the staff token a member mints for one store, the password.

/** D49: a staff token lives at most this long. */
export const STAFF_TOKEN_MAX_TTL_S = 300;

/**
 * A staff token (D49): an access token `svc_at_…` (`svc_at_test_…` on a test store) bound to
 * the store and the member, carrying the scopes of the member's role.
 */
export const ZStaffToken = z
  .object({
    access_token: ZAccessToken,
    token_type: z.literal('Bearer'),
    expires_in: z
      .number()
      .int()
      .positive()
      .max(STAFF_TOKEN_MAX_TTL_S)
      .describe('Seconds until the token expires; at most 300 (D49)'),
    scope: z.string().max(4096).describe("Space-separated scopes of the member's role (D49)"),
  })
  .strict()
  .describe('Staff token (D49)');
export type TStaffToken = z.infer<typeof ZStaffToken>;

/** D49: a new password has at least this many characters. */
export const MIN_PASSWORD_LENGTH = 12;

export const ZPasswordChange = z
  .object({
    currentPassword: z.string().min(1).max(1024),
    newPassword: z
      .string()
      .min(MIN_PASSWORD_LENGTH)
      .max(1024)
      .describe(`The new password, at least ${MIN_PASSWORD_LENGTH} characters (D49)`),
  })
  .strict();
export type TPasswordChange = z.infer<typeof ZPasswordChange>;

/** Password change answer: `{ok: true}`. */
export const ZPasswordChanged = ZDeleted;

// ---------------------------------------------------------------------------------------------
// Apps (D9).

const LOOPBACK_HOST = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

function parseUrl(value: string): URL | null {
  try {
    return new URL(value);
  } catch {
    return null;
  }
}

/**
 * A redirect URI to register (D9, RFC 6749 §3.1.2): an absolute `https` URL, or `http` only
 * for a loopback host (`localhost`, `127.x.x.x`, `[::1]`, RFC 8252 §7.3); no fragment and no
 * user info. It is matched exactly at authorization (D10).
 */
export const ZRedirectUri = z
  .string()
  .max(2048)
  .superRefine((value, ctx) => {
    const url = parseUrl(value);
    if (!url) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'must be an absolute URL' });
      return;
    }
    const loopback = LOOPBACK_HOST.test(url.hostname);
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'must be https (http only for localhost or loopback)' });
    }
    if (url.hash !== '' || value.includes('#')) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'must not contain a fragment' });
    }
    if (url.username !== '' || url.password !== '') {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'must not contain user info' });
    }
  })
  .describe('https URL, or http for localhost/127.0.0.1/[::1]; no fragment (D9)');

/**
 * A webhook URL (D32): http(s), no fragment, no user info. HTTPS and the ban on loopback,
 * link-local and private addresses are checked by the server, which lifts them when the
 * operator sets `WEBHOOK_ALLOW_PRIVATE_URLS=true` (development and tests).
 */
export const ZWebhookUrl = ZUrl.refine((u) => !u.includes('#'), 'must not contain a fragment')
  .refine((u) => {
    const url = parseUrl(u);
    return url !== null && url.username === '' && url.password === '';
  }, 'must not contain user info')
  .describe('Webhook URL; HTTPS and a public address unless the operator allows otherwise (D32)');

export const APP_DISTRIBUTIONS = ['public', 'private'] as const;
export const ZAppDistribution = z.enum(APP_DISTRIBUTIONS);

/** An app may take every topic there is, each once: the cap is the topic list's length (D54 added two). */
const ZWebhookTopics = z
  .array(ZWebhookTopic)
  .max(WEBHOOK_TOPICS.length)
  .refine((topics) => new Set(topics).size === topics.length, 'topics must be unique');

/**
 * Register an app (D9). `requestedScopes` may be later or earlier style (D16). Subscribing to
 * topics needs a `webhookUrl`.
 */
export const ZCreateAppRequest = z
  .object({
    name: ZName,
    redirectUris: z.array(ZRedirectUri).min(1).max(10),
    webhookUrl: ZWebhookUrl.optional(),
    webhookTopics: ZWebhookTopics.optional().describe('Topics to receive; none when omitted'),
    requestedScopes: ZScopeList,
    distribution: ZAppDistribution,
  })
  .strict()
  .superRefine((body, ctx) => {
    if ((body.webhookTopics?.length ?? 0) > 0 && body.webhookUrl === undefined) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['webhookUrl'],
        message: 'webhookUrl is required with webhookTopics',
      });
    }
  })
  .describe('App registration (D9)');
export type TCreateAppRequest = z.infer<typeof ZCreateAppRequest>;

/**
 * Change an app (D44): fields left out stay as they are; `testWebhookUrl: null` stops test
 * stores' events from being sent. Subscribing to topics needs a `webhookUrl`.
 */
export const ZUpdateAppRequest = z
  .object({
    name: ZName.optional(),
    redirectUris: z.array(ZRedirectUri).min(1).max(10).optional(),
    webhookUrl: ZWebhookUrl.optional(),
    testWebhookUrl: ZWebhookUrl.nullable().optional(),
    webhookTopics: ZWebhookTopics.optional(),
    apiVersion: ZApiVersion.optional(),
  })
  .strict()
  .describe('Changes to an app (D44)');
export type TUpdateAppRequest = z.infer<typeof ZUpdateAppRequest>;

/** An app as its owner reads it (D9); never carries a secret. */
export const ZApp = z
  .object({
    clientId: ZClientId,
    name: z.string(),
    redirectUris: z.array(z.string()),
    webhookUrl: z.string().nullable(),
    testWebhookUrl: z
      .string()
      .nullable()
      .describe("Where the events of the app's test stores go; none are sent while it is null (D45)"),
    webhookTopics: z.array(ZWebhookTopic),
    requestedScopes: ZGrantedScopes.describe('Normalized to later style (D16)'),
    apiVersion: ZApiVersion.describe(
      "The version that serves the app's calls sent without an Api-Version header, and renders its webhooks (D44)",
    ),
    distribution: ZAppDistribution,
    pricingApproved: z
      .boolean()
      .describe('Whether an operator approved the admin-gated pricing scopes (D9); always false for private apps'),
    createdAt: ZTimestamp,
    updatedAt: ZTimestamp,
  })
  .strict();
export type TApp = z.infer<typeof ZApp>;

/** The registration answer: the app plus its secrets, shown this once (D9, D45). */
export const ZCreatedApp = ZApp.extend({
  clientSecret: ZClientSecret,
  testClientSecret: ZTestClientSecret,
  webhookSecret: ZWebhookSecret,
}).strict();
export type TCreatedApp = z.infer<typeof ZCreatedApp>;

export const CLIENT_SECRET_MODES = ['live', 'test'] as const;

/** Which client secret to rotate: the live one (the default) or the test one (D45). */
export const ZRotateClientSecretRequest = z
  .object({
    mode: z
      .enum(CLIENT_SECRET_MODES)
      .optional()
      .describe('`live` (the default) rotates the client secret, `test` the test client secret'),
  })
  .strict();
export type TRotateClientSecretRequest = z.infer<typeof ZRotateClientSecretRequest>;

/**
 * A new client secret, shown once; the old one stops working at once (D9). After a rotation
 * of the test client secret (D45) it is the new `svc_test_secret_…`.
 */
export const ZRotatedClientSecret = z
  .object({
    clientId: ZClientId,
    clientSecret: z
      .string()
      .startsWith('svc_')
      .max(255)
      .describe(
        'The new secret of the mode rotated: `svc_secret_…`, or `svc_test_secret_…` for the test mode (shown once)',
      ),
  })
  .strict();
export type TRotatedClientSecret = z.infer<typeof ZRotatedClientSecret>;

// ---------------------------------------------------------------------------------------------
// Test stores (D45).

/** A test store's domain: its name's slug with the `.test` suffix no live store may take. */
export const TEST_STORE_DOMAIN_SUFFIX = '.test';
/** How many test stores one app may have. */
export const MAX_TEST_STORES_PER_APP = 5;

export const ZCreateTestStoreRequest = z.object({ name: ZName }).strict().describe('A new test store');
export type TCreateTestStoreRequest = z.infer<typeof ZCreateTestStoreRequest>;

/** A test store of an app (D45): `livemode` is false and fixed for life. */
export const ZTestStore = z
  .object({
    id: ZId,
    name: z.string(),
    domain: z.string().describe('`<slug>.test`, unique like every store domain'),
    livemode: z.literal(false).describe('Always false: a test store never becomes live'),
    createdAt: ZTimestamp,
  })
  .strict();
export type TTestStore = z.infer<typeof ZTestStore>;

/** The creation answer: the store, and the app's test client secret when this answer shows it. */
export const ZCreatedTestStore = ZTestStore.extend({
  testClientSecret: ZTestClientSecret.optional().describe(
    'Shown once, in the answer of the first test store of an app registered without a test client secret',
  ),
}).strict();
export type TCreatedTestStore = z.infer<typeof ZCreatedTestStore>;

// ---------------------------------------------------------------------------------------------
// Installations (D14) and session tokens (D15).

/** One (store, app) installation. Uninstalled ones stay listed with `uninstalledAt` set. */
export const ZInstallation = z
  .object({
    id: ZId,
    storeId: ZId,
    clientId: ZClientId,
    appName: z.string(),
    scopes: ZGrantedScopes.describe('Granted scopes, later style'),
    installedAt: ZTimestamp,
    updatedAt: ZTimestamp,
    uninstalledAt: ZTimestamp.nullable(),
  })
  .strict();
export type TInstallation = z.infer<typeof ZInstallation>;

/** D15: `{session_token}`, an HS256 JWT valid 60 s. */
export const ZSessionTokenMint = z
  .object({
    session_token: z
      .string()
      .min(1)
      .max(4096)
      .describe('HS256 JWT (iss, aud, sub, dest, sid, jti, iat, nbf, exp = 60 s) (D15)'),
  })
  .strict();
export type TSessionTokenMint = z.infer<typeof ZSessionTokenMint>;

/** Uninstall answer: `{ok: true}`, as the D1 deletes. */
export const ZUninstalled = ZDeleted;

// ---------------------------------------------------------------------------------------------
// Event log and replay (D34).

export const EVENT_STATUSES = ['pending', 'delivered', 'failed'] as const;
export const ZEventStatus = z.enum(EVENT_STATUSES);

/** One delivery attempt (D34). */
export const ZDeliveryAttempt = z
  .object({
    id: ZId,
    attemptedAt: ZTimestamp,
    statusCode: z
      .number()
      .int()
      .min(100)
      .max(599)
      .nullable()
      .describe('Null when no HTTP answer came (timeout, refused)'),
    durationMs: z.number().int().nonnegative(),
    error: z.string().max(1024).nullable().describe('Why the attempt failed, null on success'),
    response: z.string().max(1024).nullable().describe('At most 1 KiB of the answer, null when none came (D35)'),
  })
  .strict();
export type TDeliveryAttempt = z.infer<typeof ZDeliveryAttempt>;

function logged<const T extends WebhookTopic>(topic: T) {
  return z
    .object({
      id: ZWebhookEventId,
      topic: z.literal(topic),
      createdAt: ZTimestamp,
      storeId: ZId,
      body: WEBHOOK_BODY_SCHEMAS[topic],
      status: ZEventStatus,
      nextAttemptAt: ZTimestamp.nullable().describe('When the next attempt is due; null once delivered or failed'),
      attempts: z.array(ZDeliveryAttempt).describe('Oldest first'),
    })
    .strict();
}

/** One topic's event in the app's event log, named so that clients can tell them apart. */
export const ZClaimCreatedAppEvent = logged('claim/created');
export const ZClaimApprovedAppEvent = logged('claim/approved');
export const ZClaimDeniedAppEvent = logged('claim/denied');
export const ZMessageCreatedAppEvent = logged('message/created');
export const ZProtectionAddedAppEvent = logged('protection/added');
export const ZProtectionRemovedAppEvent = logged('protection/removed');
export const ZTrackingUpdatedAppEvent = logged('tracking/updated');
export const ZTrackingAlertAppEvent = logged('tracking/alert');

/** An event of the app with its delivery attempts (D34), discriminated by `topic`. */
export const ZAppEvent = z
  .discriminatedUnion('topic', [
    ZClaimCreatedAppEvent,
    ZClaimApprovedAppEvent,
    ZClaimDeniedAppEvent,
    ZMessageCreatedAppEvent,
    ZProtectionAddedAppEvent,
    ZProtectionRemovedAppEvent,
    ZTrackingUpdatedAppEvent,
    ZTrackingAlertAppEvent,
  ])
  .describe('Webhook event and its delivery attempts (D34)');
export type TAppEvent = z.infer<typeof ZAppEvent>;

/** D34 list query: cursor paging as D24 plus a `status` filter. Ordered by createdAt, id. */
export const ZAppEventsQuery = ZPageQuery.extend({
  status: ZEventStatus.optional(),
});
export type TAppEventsQuery = z.infer<typeof ZAppEventsQuery>;

export const ZAppEventConnection = connection(ZAppEvent);
export type TAppEventConnection = z.infer<typeof ZAppEventConnection>;

/** D34: a sample event of `topic` for one store the app is installed on. */
export const ZWebhookTestRequest = z
  .object({
    topic: ZWebhookTopic,
    storeId: ZId,
  })
  .strict();
export type TWebhookTestRequest = z.infer<typeof ZWebhookTestRequest>;

/**
 * Test answer: the sample is sent once, at once, signed like any delivery, and neither retried
 * nor written to the event log; the answer reports that single attempt.
 */
export const ZWebhookTestResult = z
  .object({
    id: ZWebhookEventId,
    topic: ZWebhookTopic,
    storeId: ZId,
    delivered: z.boolean().describe('True when the app answered 2xx within 5 s'),
    attempt: ZDeliveryAttempt,
  })
  .strict();
export type TWebhookTestResult = z.infer<typeof ZWebhookTestResult>;

/** D34: the new webhook secret, shown once; the previous one keeps signing for 24 h. */
export const ZRotatedWebhookSecret = z
  .object({
    webhookSecret: ZWebhookSecret,
    previousSecretExpiresAt: ZTimestamp,
  })
  .strict();
export type TRotatedWebhookSecret = z.infer<typeof ZRotatedWebhookSecret>;

/** One version's use by an app over the last 30 days (D44): its calls, errors included. */
export const ZApiVersionUsage = z
  .object({
    version: ZApiVersion,
    calls: z
      .number()
      .int()
      .nonnegative()
      .describe('Answers of versioned routes given in this version, errors included'),
    lastCallAt: ZTimestamp.nullable().describe('The last of them; null when there was none'),
    deprecated: z.boolean(),
    sunset: ZTimestamp.nullable().describe('When a deprecated version stops being served; null otherwise'),
  })
  .strict();
export type TApiVersionUsage = z.infer<typeof ZApiVersionUsage>;

/** GET /v1/apps/:clientId/api-health (D44): every version, newest first, with the app's calls in it. */
export const ZApiHealth = z.object({ versions: z.array(ZApiVersionUsage) }).strict();
export type TApiHealth = z.infer<typeof ZApiHealth>;
