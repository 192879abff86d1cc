// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import type { TRole as Role, TMember } from '@protection-service/sdk';
import { Hidden } from '../../html';
import { type Column, DataTable } from '../data-table';
import { Check, Field, SelectField } from '../fields';
import { DashboardLayout, manages, Notice } from '../frame';
import { storePath } from '../paths';
import type { MemberStore } from '../port';
import type { SignedIn } from '../staff-api';
import { Email, ROLE_WORDS, shortDate } from '../words';

const ROLE_LIST = Object.keys(ROLE_WORDS) as Role[];

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

export function TeamPage(props: { session: SignedIn; store: MemberStore; team: TMember[]; notice: unknown }) {
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
  return (
    <div class="actions">
      <form method="post" action={`${storePath(store.id, 'team', m.id)}/role`} class="actions">
        <Hidden values={{ csrf: props.session.csrf }} />
        <SelectField
          id={`role-${m.id}`}
          name="role"
          label={`Role for ${m.email}`}
          options={roles.map((r) => [r, ROLE_WORDS[r]] as const)}
          selected={m.role}
        >
          <button type="submit" aria-label={`Change role of ${m.email}`}>
            Change role
          </button>
        </SelectField>
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
        <Field
          id="invite-email"
          label="E-mail"
          control={(d) => <input {...d} name="email" type="email" required maxLength={254} />}
        />
        <SelectField
          id="invite-role"
          name="role"
          label="Role"
          options={roles.map((r) => [r, ROLE_WORDS[r]] as const)}
          selected="agent"
        />
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
        <Check name="claimFiled" label="E-mail me when a claim is filed" checked={props.me.notices.claimFiled} />
        <Check
          name="shopperReplied"
          label="E-mail me when a shopper replies"
          checked={props.me.notices.shopperReplied}
        />
        <button type="submit">Save notices</button>
      </form>
    </section>
  );
}
