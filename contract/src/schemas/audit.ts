import { z } from 'zod';
import { connection, ZId, ZPageQuery, ZTimestamp, ZTimestampInput } from './common';

/** Every act the store audit log records (D53), named `<thing>.<verb>`. */
export const AUDIT_ACTIONS = [
  'claim.approved',
  'claim.denied',
  'claim.moved',
  'claim.note_added',
  'claims.exported',
  'settings.updated',
  'pricing.updated',
  'member.invited',
  'member.role_changed',
  'member.removed',
  'app.installed',
  'app.uninstalled',
  'user.signed_in',
  'user.password_changed',
  'tracking_source.created',
  'tracking_source.removed',
  'tracking_settings.updated',
] as const;
export const ZAuditAction = z.enum(AUDIT_ACTIONS);
export type TAuditAction = z.infer<typeof ZAuditAction>;

/** One line of the store audit log (D53): who did what, to what, when and from where. */
export const ZAuditEvent = z
  .object({
    id: z.string(),
    at: ZTimestamp,
    actor: z
      .object({
        type: z.enum(['user', 'app']),
        id: z.string().describe("The user's id or the app's client id"),
        email: z.string().nullable().describe("The user's e-mail at the time; null for an app"),
      })
      .strict(),
    action: ZAuditAction,
    target: z.object({ type: z.string(), id: z.string() }).strict(),
    changes: z
      .unknown()
      .nullable()
      .describe(
        'What changed (e.g. `{before, after}` for settings and pricing); never a secret, card-like numbers redacted',
      ),
    ip: z.string().nullable(),
    userAgent: z.string().nullable(),
  })
  .strict();
export type TAuditEvent = z.infer<typeof ZAuditEvent>;

/** `GET /v1/stores/:storeId/audit-events` query: D24 paging, newest first, and filters (D53). */
export const ZAuditEventsQuery = ZPageQuery.extend({
  actor: z
    .string()
    .min(1)
    .max(320)
    .optional()
    .describe("Only the acts of this actor: a user's id or e-mail, or an app's client id"),
  action: ZAuditAction.optional().describe('Only this action'),
  createdAtMin: ZTimestampInput.optional().describe('Acts at or after'),
  createdAtMax: ZTimestampInput.optional().describe('Acts at or before'),
});
export type TAuditEventsQuery = z.infer<typeof ZAuditEventsQuery>;

export const ZAuditEventConnection = connection(ZAuditEvent);
export type TAuditEventConnection = z.infer<typeof ZAuditEventConnection>;

export const ZAuditEventsParams = z.object({ storeId: ZId });
