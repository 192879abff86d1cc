// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import type { TClaimState, TResolutionType } from '@protection-service/contract';
import express, { type Request, type Response, Router } from 'express';
import {
  type ClaimLinks,
  type ClaimPageView,
  claimPage,
  linkedClaimId,
  linkedOpenClaim,
  linkIdOf,
  postShopperMessage,
  postShopperPhoto,
  SHOPPER_MESSAGE_MAX,
} from '../domain/claims/links';
import { discardUnattachedFiles, prepareUpload, storePrepared } from '../domain/files/files';
import { mapError, setErrorHeaders } from '../http/errors';
import { rateLimitHeaders } from '../http/rate-limit';
import type { RouteContext } from '../routes/context';
import type { BrowserSession, BrowserSessions } from './browser-session';
import { fitsStatedLength, readPageBody } from './claim-form/load';
import { refusalWords } from './claim-form/render';
import { FormExpired, Hidden, Layout, MessagePage, sendPage, wrap } from './html';

/**
 * The shopper's claim page (D41): `GET /claims/view/:token` and its message form. The token is
 * the whole credential: no sign-in, and nothing on the page names the claim id.
 */
export const CLAIM_PAGE_PATH = '/claims/view/:token';
export const CLAIM_MESSAGE_PATH = '/claims/view/:token/messages';
/** D56 "Add photos": each photo a message with its media. */
export const CLAIM_PHOTOS_PATH = '/claims/view/:token/photos';
/** The photos one "Add photos" may carry. */
const ADD_PHOTOS_MAX = 10;

/** D41: messages a link may post per minute, counted on every process alike. */
const CLAIM_MESSAGES_PER_MINUTE = 10;

/** Each state of D22 in the shopper's words. */
const STATE_WORDS: Record<TClaimState, string> = {
  NEW: 'Received: the store will look at it soon',
  OPEN: 'Open: the store is looking at it',
  COMMUNICATING: 'In conversation with the store',
  WAITING_FOR_CUSTOMER: 'Waiting for your answer',
  WAITING_FOR_BRAND: 'Waiting for the store',
  WAITING_FOR_OP: 'Being reviewed',
  APPROVED: 'Approved',
  DENIED: 'Declined',
  DISMISSED: 'Dismissed',
  TEMPORARILY_DISMISSED: 'On hold',
  RESOLVED: 'Resolved',
  RESOLVED_BY_BRAND: 'Resolved by the store',
  CLOSED: 'Closed',
  ARCHIVED: 'Closed',
};

const RESOLUTION_WORDS: Record<TResolutionType, string> = {
  REFUND: 'Refund',
  RESHIP: 'Replacement shipped',
  STORE_CREDIT: 'Store credit',
};

const money = (value: number, currency: string | null) =>
  currency ? `${value.toFixed(value % 1 === 0 ? 0 : 2)} ${currency}` : value.toFixed(2);

type ClaimViewProps = {
  view: ClaimPageView;
  session: BrowserSession;
  action: string;
  draft?: string;
  error?: string;
  photoError?: string;
};

function ClaimView(props: ClaimViewProps) {
  const { view } = props;
  return (
    <Layout title={`Your claim with ${view.storeName}`}>
      <section class="card" aria-labelledby="title">
        <h1 id="title">Your claim with {view.storeName}</h1>
        <dl class="facts">
          <dt>Order</dt>
          <dd>{view.orderNumber}</dd>
          <dt>Status</dt>
          <dd>
            <strong>{STATE_WORDS[view.claimState]}</strong>
          </dd>
          <dt>Filed</dt>
          <dd>
            <time dateTime={view.filedAt.toISOString()}>{view.filedAt.toISOString().slice(0, 10)}</time>
          </dd>
        </dl>
        <h2>Items</h2>
        <ul class="items">
          {view.items.map((i) => (
            <li>
              {i.name ?? i.itemId ?? 'Item'} <span class="muted">× {i.quantity}</span>
            </li>
          ))}
        </ul>
        <Resolution view={view} />
      </section>
      <section class="card" aria-labelledby="messages-title">
        <h2 id="messages-title">Messages</h2>
        <Messages view={view} />
        <MessageForm {...props} />
      </section>
      {view.open ? (
        <PhotoForm {...props} />
      ) : props.photoError ? (
        <section class="card" aria-labelledby="photos-title">
          <h2 id="photos-title">Add photos</h2>
          <p class="error" role="alert">
            {props.photoError}
          </p>
        </section>
      ) : null}
    </Layout>
  );
}

/** What the store decided: resolutions and store credit codes, once there are any. */
function Resolution({ view }: { view: ClaimPageView }) {
  if (view.resolutions.length === 0 && view.storeCredits.length === 0) return null;
  return (
    <>
      <h2>Resolution</h2>
      <ul class="items">
        {view.resolutions.map((r) => (
          <li>
            {RESOLUTION_WORDS[r.type]}
            {r.paidValue !== null ? `: ${money(r.paidValue, r.paidCurrency)}` : ''}
            {r.details ? <span class="muted"> ({r.details})</span> : null}
          </li>
        ))}
        {view.storeCredits.map((c) => (
          <li>
            Store credit code <code class="code">{c.code}</code> worth {money(c.totalValue, c.currency)}
          </li>
        ))}
      </ul>
    </>
  );
}

/** The claim's messages, the shopper's own and the store's or partner's. */
function Messages({ view }: { view: ClaimPageView }) {
  return (
    <>
      {view.messages.length === 0 ? <p class="muted">No messages yet.</p> : null}
      <ol class="messages">
        {view.messages.map((m) => (
          <li class={m.senderType === 'customer' ? 'mine' : 'theirs'}>
            <p class="from">
              {m.senderType === 'customer' ? 'You' : (m.authorName ?? view.storeName)}{' '}
              <time class="muted" dateTime={m.createdAt.toISOString()}>
                {m.createdAt.toISOString().slice(0, 16).replace('T', ' ')} UTC
              </time>
            </p>
            <p class="body">{m.message}</p>
            {m.medias.map((url, k) => (
              <a href={url}>
                <img class="photo" src={url} alt={`Attachment ${k + 1} of this message`} width={160} />
              </a>
            ))}
          </li>
        ))}
      </ol>
    </>
  );
}

function MessageForm(props: ClaimViewProps) {
  return (
    <form method="post" action={props.action} class="stack">
      <Hidden values={{ csrf: props.session.csrf }} />
      <label for="message">Message</label>
      {props.error ? (
        <p class="error" role="alert" id="message-error">
          {props.error}
        </p>
      ) : null}
      <textarea
        id="message"
        name="message"
        rows={5}
        maxLength={SHOPPER_MESSAGE_MAX}
        required
        aria-describedby={props.error ? 'message-error' : undefined}
      >
        {props.draft ?? ''}
      </textarea>
      <button type="submit" class="primary">
        Send
      </button>
    </form>
  );
}

/** D56 "Add photos" while the claim is open: several at once, the phone's camera may take them. */
function PhotoForm(props: ClaimViewProps) {
  return (
    <section class="card" aria-labelledby="photos-title">
      <h2 id="photos-title">Add photos</h2>
      <form
        method="post"
        action={props.action.replace(/messages$/, 'photos')}
        enctype="multipart/form-data"
        class="stack"
      >
        <Hidden values={{ csrf: props.session.csrf }} />
        {props.photoError ? (
          <p class="error" role="alert" id="photos-error">
            {props.photoError}
          </p>
        ) : null}
        <label for="photos">Photos</label>
        <p class="muted" id="photos-hint">
          JPEG, PNG, WebP or HEIC, up to 10 MB each.
        </p>
        <input
          id="photos"
          name="photos"
          type="file"
          multiple
          required
          accept="image/jpeg,image/png,image/webp,image/heic,image/heif"
          aria-describedby={props.photoError ? 'photos-hint photos-error' : 'photos-hint'}
        />
        <button type="submit">Add photos</button>
      </form>
    </section>
  );
}

function NotFoundPage() {
  return (
    <MessagePage title="Claim not found">
      <p>This link does not open a claim. Check that you copied the whole link from the e-mail you received.</p>
    </MessagePage>
  );
}

/** The D41 page and its form. */
export function claimPages(ctx: RouteContext, sessions: BrowserSessions, links: ClaimLinks): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '64kb', parameterLimit: 10 });
  const pageOf = (req: Request) => `/claims/view/${req.params.token}`;

  const render = async (
    req: Request,
    res: Response,
    linkId: string,
    status = 200,
    extra: { draft?: string; error?: string; photoError?: string } = {},
  ) => {
    const view = await claimPage(ctx.db, linkId);
    if (!view) return sendPage(res, 404, <NotFoundPage />);
    const session = await sessions.ensure(req, res);
    sendPage(res, status, <ClaimView view={view} session={session} action={`${pageOf(req)}/messages`} {...extra} />);
  };

  router.get(
    CLAIM_PAGE_PATH,
    wrap(async (req, res) => {
      const linkId = linkIdOf(links, req.params.token ?? '');
      if (!linkId) return sendPage(res, 404, <NotFoundPage />);
      await render(req, res, linkId);
    }),
  );

  router.post(
    CLAIM_MESSAGE_PATH,
    form,
    wrap(async (req, res) => {
      const linkId = linkIdOf(links, req.params.token ?? '');
      const claimId = linkId && (await linkedClaimId(ctx.db, linkId));
      if (!linkId || !claimId) return sendPage(res, 404, <NotFoundPage />);
      const body = (req.body ?? {}) as Record<string, unknown>;
      if (!sessions.csrfMatches(await sessions.read(req), body.csrf)) {
        return sendPage(
          res,
          403,
          <MessagePage title="This form has expired">
            <p>
              The message was not sent from this page. <a href={pageOf(req)}>Open your claim again</a> and send it from
              there.
            </p>
          </MessagePage>,
        );
      }
      // D41: per link, counted in the database so that every process shares the count.
      const decision = await ctx.auth.limiter.exact(`claim-link:${claimId}`, CLAIM_MESSAGES_PER_MINUTE);
      const pairs = rateLimitHeaders(decision);
      for (let i = 0; i < pairs.length; i += 2) res.setHeader(pairs[i]!, pairs[i + 1]!);
      // PostgreSQL text cannot hold NUL: dropped, like the line ends browsers send as CRLF.
      const raw = typeof body.message === 'string' ? body.message : '';
      const message = raw.replaceAll('\u0000', '').replace(/\r\n/g, '\n').trim();
      if (!decision.allowed) {
        ctx.auth.metrics.rateLimited('claimMessages');
        return render(req, res, linkId, 429, {
          draft: message.slice(0, SHOPPER_MESSAGE_MAX),
          error: 'You have sent many messages in a short time. Wait a minute, then send this one again.',
        });
      }
      if (message === '' || message.length > SHOPPER_MESSAGE_MAX) {
        return render(req, res, linkId, 400, {
          draft: message.slice(0, SHOPPER_MESSAGE_MAX),
          error:
            message === ''
              ? 'Write a message before sending.'
              : `A message may be at most ${SHOPPER_MESSAGE_MAX} characters long.`,
        });
      }
      if (!(await postShopperMessage(ctx.db, linkId, message))) return sendPage(res, 404, <NotFoundPage />);
      res.setHeader('cache-control', 'no-store');
      res.redirect(303, `${pageOf(req)}#messages-title`);
    }),
  );

  router.post(CLAIM_PHOTOS_PATH, wrap(addPhotos(ctx, sessions, links, render)));
  return router;
}

/**
 * D56 "Add photos": the photos are checked (type, size, decoding) before any is stored, then
 * each is stored and becomes a shopper message with its media; a refusal stores nothing and
 * answers the page with the reason in words. Counted with the link's messages (D41).
 */
function addPhotos(
  ctx: RouteContext,
  sessions: BrowserSessions,
  links: ClaimLinks,
  render: (
    req: Request,
    res: Response,
    linkId: string,
    status?: number,
    extra?: { photoError?: string },
  ) => Promise<void>,
) {
  return async (req: Request, res: Response) => {
    const linkId = linkIdOf(links, req.params.token ?? '');
    const claim = linkId && (await linkedOpenClaim(ctx.db, linkId));
    if (!linkId || !claim) return sendPage(res, 404, <NotFoundPage />);
    if (!fitsStatedLength(req, ADD_PHOTOS_MAX)) {
      res.setHeader('connection', 'close');
      return render(req, res, linkId, 413, {
        photoError: 'The photos together are too large: at most 10 of 10 MB each.',
      });
    }
    const body = await readPageBody(req, ADD_PHOTOS_MAX, 4);
    if (!sessions.csrfMatches(await sessions.read(req), body.fields.csrf?.[0]))
      return sendPage(res, 403, <FormExpired />);
    if (claim === 'closed')
      return render(req, res, linkId, 409, { photoError: 'This claim is closed: no photos can be added.' });
    const decision = await ctx.auth.limiter.exact(`claim-link:${claim.claimId}`, CLAIM_MESSAGES_PER_MINUTE);
    if (!decision.allowed) {
      const pairs = rateLimitHeaders(decision);
      for (let i = 0; i < pairs.length; i += 2) res.setHeader(pairs[i]!, pairs[i + 1]!);
      return render(req, res, linkId, 429, { photoError: 'Too many in a short time. Wait a minute, then try again.' });
    }
    if (body.broken) return render(req, res, linkId, 400, { photoError: body.broken });
    if (body.refused) {
      return render(req, res, linkId, body.refused.status, {
        photoError: refusalWords(body.refused.status, body.refused.name),
      });
    }
    if (body.files.length === 0) return render(req, res, linkId, 400, { photoError: 'Choose at least one photo.' });
    const stored: string[] = [];
    let current = body.files[0]!.name;
    try {
      const prepared = [];
      for (const file of body.files) {
        current = file.name;
        prepared.push(await prepareUpload(file.bytes));
      }
      current = '';
      for (const form of prepared) {
        const file = await storePrepared(ctx.db, ctx.fileStorage, ctx.fileLinks, claim.storeId, 'claim_evidence', form);
        stored.push(file.id);
        await postShopperPhoto(ctx.db, linkId, file.url);
      }
    } catch (err) {
      const mapped = mapError(err);
      if (!mapped || mapped.status === 500) throw err;
      await discardUnattachedFiles(ctx.db, ctx.fileStorage, claim.storeId, stored);
      // D46, D56: storage out of reach is a moment's wait, said on the page.
      setErrorHeaders(res, mapped);
      const photoError = refusalWords(mapped.status, current || undefined, mapped.message);
      return render(req, res, linkId, mapped.status, { photoError });
    }
    res.setHeader('cache-control', 'no-store');
    res.redirect(303, `/claims/view/${req.params.token}#messages-title`);
  };
}
