// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import { type TRole as Role, type TMember, unwrap } from '@protection-service/sdk';
import express, { type Request, Router } from 'express';
import { Hidden, sendPage } from '../html';
import { type Column, DataTable } from './data-table';
import { field, seeOther, withNotice } from './forms';
import { DashboardLayout, Notice } from './frame';
import type { Dashboard, StoreForm } from './handlers';
import { DASHBOARD_PATH, storePath } from './paths';
import type { MemberStore } from './port';
import { manages } from './settings';
import type { SignedIn } from './staff-api';
import { Email, ROLE_WORDS, shortDate } from './words';

/**
 * The team page (D53): the store's members and invitations with their roles. An owner or admin
 * invites, changes roles and removes, through `…/members` with their dashboard token (the API
 * checks the role); what the rules forbid (an admin and owners, the last owner) is said on the
 * page instead of offered. Every member chooses their own merchant notices here.
 */
export const TEAM_PATH = `${DASHBOARD_PATH}/stores/:storeId/team`;
export const TEAM_FORMS = ['invite', 'notices', ':memberId/role', ':memberId/remove'] as const;

const ROLE_LIST = Object.keys(ROLE_WORDS) as Role[];

const back = (req: Request) => storePath(String(req.params.storeId), 'team');

export function teamPages(dashboard: Dashboard): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 20 });
  const api = (f: Pick<StoreForm, 'req' | 'session'>) => dashboard.staff.asUser(f.req, f.session).members;
  const done = (f: StoreForm, notice: string) => seeOther(f.res, withNotice(storePath(f.store.id, 'team'), notice));

  router.get(
    TEAM_PATH,
    dashboard.page(async (page) => {
      const { data } = unwrap(await api(page).list({ params: { storeId: page.store.id } }));
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
      const role = field(f.body, 'role') as Role;
      const res = await api(f).invite({
        params: { storeId: f.store.id },
        body: { email: field(f.body, 'email'), role },
      });
      if (res.status === 409) return done(f, 'alreadyMember');
      unwrap(res);
      done(f, 'invited');
    }),
  );
  router.post(
    `${TEAM_PATH}/notices`,
    form,
    dashboard.form(back, async (f) => {
      const notices = { claimFiled: f.body.claimFiled === 'on', shopperReplied: f.body.shopperReplied === 'on' };
      unwrap(await api(f).update({ params: { storeId: f.store.id, userId: f.session.user.id }, body: { notices } }));
      done(f, 'noticesSaved');
    }),
  );
  router.post(
    `${TEAM_PATH}/:memberId/role`,
    form,
    dashboard.form(back, async (f) => {
      const params = { storeId: f.store.id, userId: String(f.req.params.memberId) };
      const res = await api(f).update({ params, body: { role: field(f.body, 'role') as Role } });
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

/** What the signed-in person may do to one member, or why not (D49, D53). */
function allowed(store: MemberStore, member: TMember, owners: number): { ok: true } | { ok: false; why: string } {
  if (!manages(store)) return { ok: false, why: '' };
  if (store.role === 'admin' && member.role === 'owner')
    return { ok: false, why: 'Only an owner can change an owner.' };
  if (member.status === 'active' && member.role === 'owner' && owners === 1) {
    return { ok: false, why: 'The only owner: make another member owner first.' };
  }
  return { ok: true };
}

function TeamPage(props: { session: SignedIn; store: MemberStore; team: TMember[]; notice: unknown }) {
  const { store, team } = props;
  const owners = team.filter((m) => m.status === 'active' && m.role === 'owner').length;
  const me = team.find((m) => m.id === props.session.user.id);
  return (
    <DashboardLayout title="Team" session={props.session} store={store} section="team">
      <h1>Team</h1>
      <Notice code={props.notice} />
      <DataTable
        label="Members"
        caption="The people of this store and their roles"
        columns={memberColumns(props.session, store, owners)}
        rows={team}
      />
      {manages(store) ? (
        <InviteForm session={props.session} store={store} />
      ) : (
        <p class="muted">Only an owner or admin of the store can invite, change or remove members.</p>
      )}
      {me ? <NoticesForm session={props.session} store={store} me={me} /> : null}
    </DashboardLayout>
  );
}

/** The team's columns: the person and their role on top on a phone; the change forms when the person manages. */
function memberColumns(session: SignedIn, store: MemberStore, owners: number): Column<TMember>[] {
  const columns: Column<TMember>[] = [
    {
      head: 'Person',
      top: true,
      cell: (m) => (
        <>
          {m.name ? (
            <>
              {m.name} (<Email address={m.email} />)
            </>
          ) : (
            <Email address={m.email} />
          )}
          {m.id === session.user.id ? <span class="muted"> (you)</span> : null}
        </>
      ),
    },
    { head: 'Role', top: true, cell: (m) => ROLE_WORDS[m.role] },
    {
      head: 'Status',
      bare: true,
      cell: (m) =>
        m.status === 'active'
          ? `Joined ${shortDate(m.joinedAt!)}`
          : `Invited ${shortDate(m.invitedAt!)}, until ${shortDate(m.expiresAt!)}`,
    },
  ];
  if (!manages(store)) return columns;
  const change: Column<TMember> = {
    head: 'Change',
    bare: true,
    cell: (m) => {
      const rule = allowed(store, m, owners);
      return rule.ok ? <MemberForms session={session} store={store} member={m} /> : <span>{rule.why}</span>;
    },
  };
  return [...columns, change];
}

function MemberForms(props: { session: SignedIn; store: MemberStore; member: TMember }) {
  const { member: m, store } = props;
  const roles = store.role === 'owner' ? ROLE_LIST : ROLE_LIST.filter((r) => r !== 'owner');
  const selectId = `role-${m.id}`;
  return (
    <div class="actions">
      <form method="post" action={`${storePath(store.id, 'team', m.id)}/role`} class="actions">
        <Hidden values={{ csrf: props.session.csrf }} />
        <label for={selectId}>Role for {m.email}</label>
        <select id={selectId} name="role">
          {roles.map((r) => (
            <option value={r} selected={r === m.role}>
              {ROLE_WORDS[r]}
            </option>
          ))}
        </select>
        <button type="submit" aria-label={`Change role of ${m.email}`}>
          Change role
        </button>
      </form>
      <form method="post" action={`${storePath(store.id, 'team', m.id)}/remove`}>
        <Hidden values={{ csrf: props.session.csrf }} />
        <button type="submit" class="danger" aria-label={`Remove ${m.email}`}>
          Remove
        </button>
      </form>
    </div>
  );
}

function InviteForm(props: { session: SignedIn; store: MemberStore }) {
  const { store } = props;
  const roles = store.role === 'owner' ? ROLE_LIST : ROLE_LIST.filter((r) => r !== 'owner');
  return (
    <section class="card" aria-labelledby="invite-title">
      <h2 id="invite-title">Invite a member</h2>
      <p class="muted">They get an e-mail with a link that works once, for 7 days.</p>
      <form method="post" action={storePath(store.id, 'team', 'invite')} class="stack">
        <Hidden values={{ csrf: props.session.csrf }} />
        <label for="invite-email">E-mail</label>
        <input id="invite-email" name="email" type="email" required maxLength={254} />
        <label for="invite-role">Role</label>
        <select id="invite-role" name="role">
          {roles.map((r) => (
            <option value={r} selected={r === 'agent'}>
              {ROLE_WORDS[r]}
            </option>
          ))}
        </select>
        <button type="submit" class="primary">
          Invite
        </button>
      </form>
    </section>
  );
}

function NoticesForm(props: { session: SignedIn; store: MemberStore; me: TMember }) {
  return (
    <section class="card" aria-labelledby="notices-title">
      <h2 id="notices-title">Your e-mail notices</h2>
      <form method="post" action={storePath(props.store.id, 'team', 'notices')} class="stack">
        <Hidden values={{ csrf: props.session.csrf }} />
        <label>
          <input type="checkbox" name="claimFiled" checked={props.me.notices.claimFiled} /> E-mail me when a claim is
          filed
        </label>
        <label>
          <input type="checkbox" name="shopperReplied" checked={props.me.notices.shopperReplied} /> E-mail me when a
          shopper replies
        </label>
        <button type="submit">Save notices</button>
      </form>
    </section>
  );
}
