import { isRole, minorUnits, ROLE_WORDS } from '@protection-service/contract';
import type { MailKind, MemberMailKind } from './outbox';

/** What one message says, read from the claim when it is sent. */
export interface MailFacts {
  kind: Exclude<MailKind, MemberMailKind>;
  storeName: string;
  sourceOrderNumber: string;
  /** The shopper's claim page (D41), as the claim record gives it. */
  claimUrl: string;
  denyReason: string | null;
  credit: {
    code: string;
    creditValue: number;
    bonusValue: number;
    totalValue: number;
    currency: string;
    creditType: string;
  } | null;
}

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

/** The D22 refusal reasons in the shopper's words. */
const DENY_REASONS: Record<string, string> = {
  NOT_COVERED: 'the issue is not covered by the protection',
  ADDRESS_TYPO: 'the shipping address was entered incorrectly',
  CUSTOMER_RESPONDED: 'we settled it with you directly',
  EXPIRED30: 'the claim was filed after the 30-day window',
  FOLLOW_UP: 'we did not hear back from you',
  INSUFFICIENT_SHIPPER: "the carrier's information was not sufficient",
  NO_RESPONSE: 'we did not hear back from you',
  OTHER: 'of the details of your order',
  PACKAGE_ARRIVED: 'the package arrived',
  PHOTO_VERIFIED: 'the photos did not show the reported issue',
  THRESHOLD_REACHED: 'the claim limit for this order was reached',
  ALREADY_REFUNDED: 'the order was already refunded',
  ALREADY_REPLACED: 'the order was already replaced',
  POTENTIAL_FRAUD: 'we could not verify the claim',
};

/** Text made safe for HTML element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A header-safe line: control characters (line breaks above all) become spaces. */
function oneLine(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point.
  return text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
}

function money(value: number, currency: string): string {
  return `${value.toFixed(minorUnits(currency))} ${currency}`;
}

/** A paragraph: plain text and its HTML, every value in it escaped. */
type Paragraph = { text: string; html: string };
const p = (parts: TemplateStringsArray, ...values: string[]): Paragraph => ({
  text: parts.reduce((out, part, i) => out + part + (values[i] ?? ''), ''),
  html: parts.reduce((out, part, i) => out + escapeHtml(part) + (i < values.length ? escapeHtml(values[i]!) : ''), ''),
});

/**
 * The message of one kind (D42): a plain-text and an HTML part saying the same. Every value
 * that a shopper, merchant or partner app chose (store name, order number, code) is escaped in
 * the HTML; the HTML has no images, scripts or styles from elsewhere.
 */
export function renderMail(f: MailFacts): RenderedMail {
  const order = f.sourceOrderNumber;
  let subject: string;
  let body: Paragraph[];
  switch (f.kind) {
    case 'claim_filed':
      subject = `We received your claim for order ${order}`;
      body = [
        p`Thank you: ${f.storeName} has received your claim for order ${order}.`,
        p`We will e-mail you again once it has been reviewed. You can follow it and send us a message on your claim page:`,
      ];
      break;
    case 'claim_approved':
      subject = `Your claim for order ${order} was approved`;
      body = [
        p`Good news: ${f.storeName} has approved your claim for order ${order}.`,
        p`Your claim page shows the resolution:`,
      ];
      break;
    case 'claim_denied':
      subject = `Your claim for order ${order} was declined`;
      body = [
        p`${f.storeName} has reviewed your claim for order ${order} and could not approve it, because ${DENY_REASONS[f.denyReason ?? ''] ?? DENY_REASONS.OTHER!}.`,
        p`You can read the details and reply on your claim page:`,
      ];
      break;
    case 'store_credit': {
      const c = f.credit!;
      const kind = c.creditType === 'GIFT_CARD' ? 'gift card' : 'discount code';
      subject = `Your store credit from ${f.storeName}: ${money(c.totalValue, c.currency)}`;
      body = [
        p`${f.storeName} has issued you a store credit for your claim on order ${order}.`,
        p`Your ${kind}: ${c.code}`,
        p`Value: ${money(c.creditValue, c.currency)}, bonus: ${money(c.bonusValue, c.currency)}, total: ${money(c.totalValue, c.currency)}.`,
        p`Enter the code at checkout. Your claim page shows it too:`,
      ];
      break;
    }
  }
  const text = [...body.map((b) => b.text), f.claimUrl, '', `— ${f.storeName}`].join('\n\n').replace(/\n{3,}/g, '\n\n');
  const html = [
    '<!doctype html>',
    '<html><head><meta charset="utf-8"></head><body>',
    ...body.map((b) => `<p>${b.html}</p>`),
    `<p><a href="${escapeHtml(f.claimUrl)}">${escapeHtml(f.claimUrl)}</a></p>`,
    `<p>— ${escapeHtml(f.storeName)}</p>`,
    '</body></html>',
  ].join('\n');
  return { subject: oneLine(subject), text: `${text}\n`, html: `${html}\n` };
}

/** What a message to the store's people says (D53). */
export interface MemberMailFacts {
  kind: MemberMailKind;
  storeName: string;
  /** The invitation's link, or the claim's dashboard page. */
  link: string;
  /** The claim's order number, for a notice. */
  sourceOrderNumber: string | null;
  /** The invited role, for an invitation. */
  role: string | null;
}

const MEMBER_KINDS: ReadonlySet<MailKind> = new Set<MemberMailKind>([
  'member_invited',
  'notice_claim_filed',
  'notice_shopper_replied',
]);

export function isMemberMail(kind: MailKind): kind is MemberMailKind {
  return MEMBER_KINDS.has(kind);
}

/** An invitation (D53) or a merchant notice (D53): plain text and HTML saying the same, values escaped. */
export function renderMemberMail(f: MemberMailFacts): RenderedMail {
  const order = f.sourceOrderNumber ?? '';
  let subject: string;
  let body: Paragraph[];
  if (f.kind === 'member_invited') {
    subject = `You are invited to join ${f.storeName}`;
    body = [
      p`You are invited to join the team of ${f.storeName} as ${f.role && isRole(f.role) ? ROLE_WORDS[f.role].toLowerCase() : 'member'}.`,
      p`Open this link within 7 days to join; it works once:`,
    ];
  } else if (f.kind === 'notice_claim_filed') {
    subject = `New claim for order ${order}`;
    body = [p`A shopper filed a claim for order ${order} at ${f.storeName}.`, p`Open the claim:`];
  } else {
    subject = `The shopper replied on the claim for order ${order}`;
    body = [p`The shopper wrote a new message on the claim for order ${order} at ${f.storeName}.`, p`Open the claim:`];
  }
  const text = [...body.map((b) => b.text), f.link].join('\n\n');
  const html = [
    '<!doctype html>',
    '<html><head><meta charset="utf-8"></head><body>',
    ...body.map((b) => `<p>${b.html}</p>`),
    `<p><a href="${escapeHtml(f.link)}">${escapeHtml(f.link)}</a></p>`,
    '</body></html>',
  ].join('\n');
  return { subject: oneLine(subject), text: `${text}\n`, html: `${html}\n` };
}
