// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import { unwrap } from '@protection-service/sdk';
import express, { type Request, Router } from 'express';
import { sendPage } from '../../html';
import { seeOther, withNotice } from '../forms';
import type { Dashboard, StoreForm } from '../handlers';
import { DASHBOARD_PATH, storePath } from '../paths';
import { inviteBody, noticesBody, roleBody } from './forms';
import { loadTeam, membersApi } from './load';
import { TeamPage } from './views';

/**
 * The team page (D53): the store's members and invitations with their roles. An owner or admin
 * invites, changes roles and removes, through `…/members` with their dashboard token (the API
 * checks the role); what the rules forbid (an admin and owners, the last owner) is said on the
 * page instead of offered. Every member chooses their own merchant notices here.
 */
export const TEAM_PATH = `${DASHBOARD_PATH}/stores/:storeId/team`;
export const TEAM_FORMS = ['invite', 'notices', ':memberId/role', ':memberId/remove'] as const;

const back = (req: Request) => storePath(String(req.params.storeId), 'team');

export function teamPages(dashboard: Dashboard): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 20 });
  const api = (f: Pick<StoreForm, 'req' | 'session'>) => membersApi(dashboard, f);
  const done = (f: StoreForm, notice: string) => seeOther(f.res, withNotice(storePath(f.store.id, 'team'), notice));

  router.get(
    TEAM_PATH,
    dashboard.page(async (page) => {
      const data = await loadTeam(dashboard, page);
      sendPage(
        page.res,
        200,
        <TeamPage session={page.session} store={page.store} team={data} notice={page.req.query.notice} />,
      );
    }),
  );
  router.post(
    `${TEAM_PATH}/invite`,
    form,
    dashboard.form(back, async (f) => {
      const res = await api(f).invite({ params: { storeId: f.store.id }, body: inviteBody(f.body) });
      if (res.status === 409) return done(f, 'alreadyMember');
      unwrap(res);
      done(f, 'invited');
    }),
  );
  router.post(
    `${TEAM_PATH}/notices`,
    form,
    dashboard.form(back, async (f) => {
      const params = { storeId: f.store.id, userId: f.session.user.id };
      unwrap(await api(f).update({ params, body: noticesBody(f.body) }));
      done(f, 'noticesSaved');
    }),
  );
  router.post(
    `${TEAM_PATH}/:memberId/role`,
    form,
    dashboard.form(back, async (f) => {
      const params = { storeId: f.store.id, userId: String(f.req.params.memberId) };
      const res = await api(f).update({ params, body: roleBody(f.body) });
      if (res.status === 409) return done(f, 'lastOwner');
      unwrap(res);
      // Their own role changed: the page is shown with what the new role allows.
      done(f, 'roleChanged');
    }),
  );
  router.post(
    `${TEAM_PATH}/:memberId/remove`,
    form,
    dashboard.form(back, async (f) => {
      const memberId = String(f.req.params.memberId);
      const res = await api(f).remove({ params: { storeId: f.store.id, userId: memberId } });
      if (res.status === 409) return done(f, 'lastOwner');
      unwrap(res);
      if (memberId === f.session.user.id) return seeOther(f.res, DASHBOARD_PATH);
      done(f, 'memberRemoved');
    }),
  );
  return router;
}
