import { z } from 'zod';
import { ZClaimApprove, ZClaimDeny, ZClaimTransition, ZTransitionTargetState } from './claims';
import { ZTimestamp } from './common';
import { ZWebhookEventId, ZWebhookTopic } from './webhooks';

/**
 * The test helpers (D45): token routes that act on test stores only, to drive a claim through
 * its states, act as the shopper, fire webhook events, run the retry clock, read the e-mails
 * the store would have sent and empty the store.
 */

/**
 * Move a claim as the merchant would (D22): to `APPROVED` with the approve fields, to `DENIED`
 * with the deny fields, to any other state as a transition with an optional note (the same
 * shape as the transition route's body).
 */
export const ZTestClaimApproveMove = z
  .object({ claimState: z.literal('APPROVED'), resolutions: ZClaimApprove.shape.resolutions })
  .strict();
export const ZTestClaimDenyMove = z
  .object({ claimState: z.literal('DENIED'), reason: ZClaimDeny.shape.reason, details: ZClaimDeny.shape.details })
  .strict();
export const ZTestClaimTransitionMove = z
  .object({ claimState: ZTransitionTargetState, note: ZClaimTransition.shape.note })
  .strict();

export const ZTestClaimAdvance = z
  .discriminatedUnion('claimState', [ZTestClaimApproveMove, ZTestClaimDenyMove, ZTestClaimTransitionMove])
  .describe('A move of a claim to another state');
export type TTestClaimAdvance = z.infer<typeof ZTestClaimAdvance>;

/** A message from the shopper, as the shopper's claim page posts it (D41). */
export const ZTestShopperMessage = z
  .object({ message: z.string().trim().min(1).max(5000).describe('The shopper’s message') })
  .strict();
export type TTestShopperMessage = z.infer<typeof ZTestShopperMessage>;

/** An event of `topic` with a sample body, recorded and delivered like a real one. */
export const ZTestEventRequest = z.object({ topic: ZWebhookTopic }).strict();
export type TTestEventRequest = z.infer<typeof ZTestEventRequest>;

export const ZTestEventRecorded = z
  .object({ eventId: ZWebhookEventId })
  .strict()
  .describe('The recorded event; its deliveries are in the app’s event log');
export type TTestEventRecorded = z.infer<typeof ZTestEventRecorded>;

/** One e-mail a test store would have sent. */
export const ZTestMailMessage = z
  .object({
    to: z.string().describe('The recipient'),
    subject: z.string(),
    text: z.string().describe('The plain-text body'),
    createdAt: ZTimestamp,
  })
  .strict();
export type TTestMailMessage = z.infer<typeof ZTestMailMessage>;

export const ZTestMailbox = z
  .object({ messages: z.array(ZTestMailMessage).max(100).describe('The last 100, newest first') })
  .strict();
export type TTestMailbox = z.infer<typeof ZTestMailbox>;
