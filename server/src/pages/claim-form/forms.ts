import { ISSUE_TYPES, type TIssueType, type TResolutionType } from '@protection-service/contract';
import express, { type Request, type Response, Router } from 'express';
import {
  type FormStore,
  type FoundOrder,
  fileShopperClaim,
  findShopperOrder,
  orderForForm,
  orderPass,
  passedOrder,
  type ShopperLine,
  storeByDomain,
} from '../../domain/claims/shopper-form';
import { discardUnattachedFiles, prepareUpload, storePrepared } from '../../domain/files/files';
import { clientIp } from '../../http/client-ip';
import { errorBody, mapError, setErrorHeaders } from '../../http/errors';
import { rateLimitHeaders } from '../../http/rate-limit';
import type { RouteContext } from '../../routes/context';
import type { BrowserSessions } from '../browser-session';
import { wrap } from '../html';
import { fitsStatedLength, type PageBody, readPageBody } from './load';
import { refusalWords, renderPage } from './render';
import { CLAIM_FORM_FILE_PATH, CLAIM_FORM_PATH, CLAIM_FORM_PHOTO_PATH, NOTHING_TYPED, type TypedClaim } from './views';

/** D4, D56: order lookups per address and minute, every lookup counted. */
export const LOOKUPS_PER_MINUTE = 10;
/** Photos one address may upload a minute as they are chosen. */
const UPLOADS_PER_MINUTE = 30;
/** The photos one claim form may carry. */
export const FORM_MAX_PHOTOS = 10;

/**
 * The shopper's claim form (D56): `/claims/new?store=<domain>`. Step one finds the order
 * (`POST /claims/new`), step two files the claim (`POST /claims/new/file`, multipart, the
 * photos with it when no script ran); with a script each photo goes to
 * `POST /claims/new/photos` as it is chosen. Every form carries the session's CSRF token, and
 * step two the order pass step one gave this session.
 */
export function claimFormPages(ctx: RouteContext, sessions: BrowserSessions): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '8kb', parameterLimit: 5 });
  const page = renderPage(sessions);

  router.get(
    CLAIM_FORM_PATH,
    wrap(async (req, res) => {
      const store = await storeOf(ctx, req);
      await (store ? page(req, res, { step: 'lookup', store }, 200) : page(req, res, { step: 'unknown' }, 404));
    }),
  );

  router.post(
    CLAIM_FORM_PATH,
    form,
    wrap(async (req, res) => {
      const store = await storeOf(ctx, req);
      if (!store) return page(req, res, { step: 'unknown' }, 404);
      const body = (req.body ?? {}) as Record<string, unknown>;
      const session = await sessions.read(req);
      if (!session || !sessions.csrfMatches(session, body.csrf)) return page(req, res, { step: 'expired' }, 403);
      const orderNumber = String(body.orderNumber ?? '').slice(0, 100);
      const email = String(body.email ?? '').slice(0, 320);
      // D4: every lookup counts, found or not, per address and on every process alike.
      const decision = await ctx.auth.limiter.exact(
        `claim-form:${clientIp(req, ctx.auth.trustProxy)}`,
        LOOKUPS_PER_MINUTE,
      );
      setHeaders(res, rateLimitHeaders(decision));
      if (!decision.allowed) {
        ctx.auth.metrics.rateLimited('claimForm');
        return page(req, res, { step: 'tooMany', seconds: decision.resetS }, 429);
      }
      const order = await findShopperOrder(ctx.db, store.id, orderNumber, email);
      if (!order) return page(req, res, { step: 'lookup', store, orderNumber, email, miss: true }, 200);
      const pass = orderPass(ctx.config.secretKey, { storeId: store.id, orderId: order.orderId }, session.id);
      await page(req, res, { step: 'claim', store, order, pass, typed: NOTHING_TYPED }, 200);
    }),
  );

  router.post(CLAIM_FORM_PHOTO_PATH, wrap(photoUpload(ctx, sessions)));
  router.post(CLAIM_FORM_FILE_PATH, wrap(fileFromForm(ctx, sessions, page)));
  return router;
}

const setHeaders = (res: Response, pairs: string[]) => {
  for (let i = 0; i < pairs.length; i += 2) res.setHeader(pairs[i]!, pairs[i + 1]!);
};

async function storeOf(ctx: RouteContext, req: Request): Promise<FormStore | undefined> {
  const domain = typeof req.query.store === 'string' ? req.query.store : '';
  return storeByDomain(ctx.db, domain);
}

/** The order a multipart body's pass names, for this session and store, or why not. */
async function passedOrderOf(
  ctx: RouteContext,
  sessions: BrowserSessions,
  req: Request,
  store: FormStore,
  body: PageBody,
): Promise<{ order: FoundOrder; pass: string } | undefined> {
  const session = await sessions.read(req);
  if (!session || !sessions.csrfMatches(session, body.fields.csrf?.[0])) return undefined;
  const pass = body.fields.pass?.[0] ?? '';
  const orderId = passedOrder(ctx.config.secretKey, pass, session.id, store.id);
  const order = orderId && (await orderForForm(ctx.db, store.id, orderId));
  return order ? { order, pass } : undefined;
}

/**
 * `POST /claims/new/photos`: one photo chosen with a script, stored at once as the store's
 * unattached file (D56) and answered as JSON: `{data: {id, url, type}}`, or the D2 error
 * shape. The claim attaches it when it is filed; the sweep deletes it after a day otherwise.
 */
function photoUpload(ctx: RouteContext, sessions: BrowserSessions) {
  return async (req: Request, res: Response) => {
    const refuse = (status: 400 | 403 | 404 | 413 | 415 | 422 | 429 | 503, message: string) => {
      res.status(status).setHeader('cache-control', 'no-store').json(errorBody(status, message));
    };
    const store = await storeOf(ctx, req);
    if (!store) return refuse(404, 'store not found');
    if (!fitsStatedLength(req, 1)) {
      res.setHeader('connection', 'close');
      return refuse(413, 'the photo is larger than 10 MB');
    }
    const decision = await ctx.auth.limiter.exact(
      `claim-form-upload:${clientIp(req, ctx.auth.trustProxy)}`,
      UPLOADS_PER_MINUTE,
    );
    setHeaders(res, rateLimitHeaders(decision));
    if (!decision.allowed) return refuse(429, 'too many photos in a short time; wait a minute');
    const body = await readPageBody(req, 1, 4);
    if (!(await passedOrderOf(ctx, sessions, req, store, body))) {
      return refuse(403, 'this form has expired: reload the page and find your order again');
    }
    if (body.refused) return refuse(body.refused.status, refusalWords(body.refused.status, body.refused.name));
    const file = body.files[0];
    if (body.broken || !file) return refuse(400, body.broken ?? 'no photo was sent');
    try {
      const stored = await storePrepared(
        ctx.db,
        ctx.fileStorage,
        ctx.fileLinks,
        store.id,
        'claim_evidence',
        await prepareUpload(file.bytes),
      );
      res.status(201).setHeader('cache-control', 'no-store');
      res.json({ data: { id: stored.id, url: stored.url, type: stored.type } });
    } catch (err) {
      const mapped = mapError(err);
      if (!mapped || mapped.status === 500) throw err;
      setErrorHeaders(res, mapped);
      refuse(mapped.status as 422, refusalWords(mapped.status, file.name, mapped.message));
    }
  };
}

/** What step two's body says, line by line, as typed. */
function typedOf(body: PageBody, order: FoundOrder): TypedClaim {
  const field = (name: string) => (body.fields[name]?.[0] ?? '').trim();
  const lines: TypedClaim['lines'] = {};
  order.lines.forEach((_line, i) => {
    lines[i] = {
      claim: field(`claim.${i}`) !== '',
      quantity: field(`quantity.${i}`),
      issue: field(`issue.${i}`),
      details: field(`details.${i}`).replaceAll('\u0000', '').replace(/\r\n/g, '\n').slice(0, 2000),
      photoUrls: (body.fields[`photoUrl.${i}`] ?? []).slice(0, FORM_MAX_PHOTOS),
    };
  });
  return { lines, resolution: field('resolution') };
}

/**
 * The claim step two asks for, or the problems in words: at least one line, a whole quantity
 * within what is left (D39), an issue type, photos where the store requires them (D56), and
 * one of the store's resolutions.
 */
function claimOf(
  typed: TypedClaim,
  order: FoundOrder,
  photosOf: (i: number) => number,
): { lines: Omit<ShopperLine, 'images'>[]; indexes: number[]; resolution: TResolutionType } | { errors: string[] } {
  const errors: string[] = [];
  const lines: Omit<ShopperLine, 'images'>[] = [];
  const indexes: number[] = [];
  order.lines.forEach((line, i) => {
    const t = typed.lines[i];
    if (!t?.claim || line.claimable === 0) return;
    const name = line.name ?? `Item ${line.itemId}`;
    const quantity = Number(t.quantity);
    if (!Number.isInteger(quantity) || quantity < 1 || quantity > line.claimable) {
      errors.push(`${name}: the quantity must be a whole number from 1 to ${line.claimable}.`);
    }
    const issueType = ISSUE_TYPES.find((type) => type === t.issue) as TIssueType | undefined;
    if (!issueType) errors.push(`${name}: choose what happened.`);
    else if (order.photosRequiredFor.includes(issueType) && photosOf(i) === 0) {
      errors.push(`${name}: add at least one photo showing what happened.`);
    }
    lines.push({ itemId: line.itemId, quantity, issueType: issueType ?? 'DAMAGED', details: t.details || null });
    indexes.push(i);
  });
  if (lines.length === 0 && errors.length === 0) errors.push('Choose at least one item for the claim.');
  const resolution = order.resolutions.find((r) => r === typed.resolution);
  if (!resolution) errors.push('Choose what you would like.');
  return errors.length > 0 || !resolution ? { errors } : { lines, indexes, resolution };
}

/**
 * `POST /claims/new/file`: the photos sent with the form are checked (type, size, decoding)
 * before any is stored, then stored, then the claim is filed through the one statement; a
 * refusal anywhere stores nothing (the photos just stored are deleted again) and answers
 * step two with the problems in words and what was typed. Filed, the shopper lands on the
 * claim's page (D41).
 */
function fileFromForm(ctx: RouteContext, sessions: BrowserSessions, page: ReturnType<typeof renderPage>) {
  return async (req: Request, res: Response) => {
    const store = await storeOf(ctx, req);
    if (!store) return page(req, res, { step: 'unknown' }, 404);
    if (!fitsStatedLength(req, FORM_MAX_PHOTOS)) {
      res.setHeader('connection', 'close');
      return page(req, res, { step: 'tooLarge' }, 413);
    }
    const body = await readPageBody(req, FORM_MAX_PHOTOS, 200);
    const found = await passedOrderOf(ctx, sessions, req, store, body);
    if (!found) return page(req, res, { step: 'expired' }, 403);
    const typed = typedOf(body, found.order);
    const again = (status: number, errors: string[]) =>
      page(req, res, { step: 'claim', store, order: found.order, pass: found.pass, typed, errors }, status);
    if (body.broken) return again(400, [body.broken]);
    if (body.refused) return again(body.refused.status, [refusalWords(body.refused.status, body.refused.name)]);
    const filesOf = (i: number) => body.files.filter((f) => f.field === `photos.${i}`);
    const asked = claimOf(typed, found.order, (i) => filesOf(i).length + (typed.lines[i]?.photoUrls.length ?? 0));
    if ('errors' in asked) return again(400, asked.errors);
    const stored: string[] = [];
    try {
      const prepared = await prepareAll(asked.indexes.flatMap((i) => filesOf(i).map((f) => ({ i, f }))));
      const lines: ShopperLine[] = asked.lines.map((l) => ({ ...l, images: [] }));
      for (const { i, form } of prepared) {
        const file = await storePrepared(ctx.db, ctx.fileStorage, ctx.fileLinks, store.id, 'claim_evidence', form);
        stored.push(file.id);
        lines[asked.indexes.indexOf(i)]!.images.push(file.url);
      }
      asked.indexes.forEach((i, k) => {
        lines[k]!.images.unshift(...(typed.lines[i]?.photoUrls ?? []));
      });
      const url = await fileShopperClaim(ctx.db, ctx.claimLinks, store.id, found.order, {
        resolution: asked.resolution,
        lines,
      });
      res.setHeader('cache-control', 'no-store');
      res.redirect(303, url);
    } catch (err) {
      await discardUnattachedFiles(ctx.db, ctx.fileStorage, store.id, stored);
      const mapped = mapError(err);
      if (!mapped || mapped.status === 500) throw err;
      // D46, D56: storage or the database out of reach is a moment's wait, said on the form.
      setErrorHeaders(res, mapped);
      const name = (err as { fileName?: string }).fileName;
      // A photo link refused (another store's, another claim's) is not carried on.
      if (mapped.status === 422 && !name) for (const line of Object.values(typed.lines)) line.photoUrls = [];
      await again(mapped.status, [refusalWords(mapped.status, name, mapped.message)]);
    }
  };
}

/** Each photo checked and made into what is stored, in turn; the first refusal names its file. */
async function prepareAll<T extends { f: { name: string; bytes: Buffer } }>(
  photos: T[],
): Promise<(T & { form: Awaited<ReturnType<typeof prepareUpload>> })[]> {
  const out: (T & { form: Awaited<ReturnType<typeof prepareUpload>> })[] = [];
  for (const photo of photos) {
    try {
      out.push({ ...photo, form: await prepareUpload(photo.f.bytes) });
    } catch (err) {
      if (err instanceof Error) Object.assign(err, { fileName: photo.f.name });
      throw err;
    }
  }
  return out;
}
