// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import { ROLE_SCOPES, type Scope } from '@protection-service/contract';
import type { ComponentChildren } from 'preact';
import { Hidden, Layout } from '../html';
import { DASHBOARD_PATH, DASHBOARD_SIGN_OUT_PATH, storePath } from './paths';
import type { MemberStore } from './port';
import type { SignedIn } from './staff-api';

/** The sections of a store in the navigation bar, in order (D50). */
export const SECTIONS = [
  { key: 'home', label: 'Home', path: [] },
  { key: 'claims', label: 'Claims', path: ['claims'] },
  { key: 'orders', label: 'Orders', path: ['orders'] },
  { key: 'analytics', label: 'Analytics', path: ['analytics'], scope: 'analytics:read' },
  { key: 'settings', label: 'Settings', path: ['settings'] },
  { key: 'apps', label: 'Apps', path: ['apps'] },
  { key: 'team', label: 'Team', path: ['team'] },
  // D53: owners and admins only.
  { key: 'audit', label: 'Audit log', path: ['audit'], managers: true },
] as const satisfies readonly {
  key: string;
  label: string;
  path: readonly string[];
  /** Offered to the roles whose scopes include it (D49). */
  scope?: Scope;
  /** Offered to owners and admins only. */
  managers?: true;
}[];
export type Section = (typeof SECTIONS)[number]['key'];

/** Who manages a store (D53): an owner or admin, who alone may change its settings, team and apps; the API refuses the others, so the pages offer them nothing. */
export function manages(store: MemberStore): boolean {
  return store.role === 'owner' || store.role === 'admin';
}

/** Whether the navigation offers `section` to the person's role (the API refuses the others anyway). */
function offered(section: (typeof SECTIONS)[number], store: MemberStore): boolean {
  if ('managers' in section) return manages(store);
  if ('scope' in section) return ROLE_SCOPES[store.role].includes(section.scope);
  return true;
}

function SignOut(props: { session: SignedIn }) {
  return (
    <form method="post" action={DASHBOARD_SIGN_OUT_PATH} class="signout">
      <Hidden values={{ csrf: props.session.csrf }} />
      <span class="who">Signed in as {props.session.user.email}</span>{' '}
      <button type="submit" class="link">
        Sign out
      </button>
    </form>
  );
}

/**
 * The frame of every dashboard page (D50): who is signed in with "Sign out", the store with
 * its sections, a "Test store" banner on a test store (D45), then the page.
 */
export function DashboardLayout(props: {
  title: string;
  session: SignedIn;
  store?: MemberStore;
  section?: Section;
  children: ComponentChildren;
}) {
  const { store } = props;
  return (
    <Layout
      title={store ? `${props.title} · ${store.name}` : props.title}
      wide
      aside={<SignOut session={props.session} />}
    >
      {store ? (
        <>
          <p>
            <a href={DASHBOARD_PATH}>Your stores</a> / <strong>{store.name}</strong>{' '}
            <span class="muted">({store.domain})</span>
          </p>
          {store.livemode ? null : <p class="banner">Test store</p>}
          <nav class="store tabs" aria-label="Store">
            <ul>
              {SECTIONS.filter((s) => offered(s, store)).map((s) => (
                <li>
                  <a href={storePath(store.id, ...s.path)} aria-current={s.key === props.section ? 'page' : undefined}>
                    {s.label}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
        </>
      ) : null}
      {props.children}
    </Layout>
  );
}

/** What a form post came to, said on the page it redirected to. The query names one of these. */
export const NOTICES: Record<string, { text: string; bad?: boolean }> = {
  done: { text: 'Done.' },
  replayed: { text: 'This form had been sent already: it was done once, not twice.' },
  conflict: { text: 'Someone changed this first. Here is how it stands now.', bad: true },
  signedOut: { text: 'You are signed out.' },
  claimFiled: { text: 'The claim is filed.' },
  noIssue: { text: 'Nothing was filed: choose an issue for at least one item.', bad: true },
  settingsSaved: { text: 'Settings saved.' },
  trackingSaved: { text: 'Tracking rules saved.' },
  sourceRemoved: { text: 'The tracking source is removed: deliveries to its URL are refused from now on.' },
  sourceGone: { text: 'That tracking source is not registered on this store (any more).', bad: true },
  uninstalled: { text: 'The app is uninstalled: its access to the store has ended.' },
  appGone: { text: 'That app is not installed on this store (any more).', bad: true },
  noneSelected: { text: 'Select at least one claim first.', bad: true },
  invited: { text: 'The invitation is sent: its link works once, for 7 days.' },
  alreadyMember: { text: 'That e-mail belongs to a member of this store already.', bad: true },
  roleChanged: { text: 'The role is changed.' },
  memberRemoved: { text: 'The member is removed: their access to the store has ended.' },
  lastOwner: { text: 'A store keeps at least one owner: make another member owner first.', bad: true },
  noticesSaved: { text: 'Your notices are saved.' },
  bulkIncomplete: {
    text: 'Choose what to do with the selected claims (a new state, a reason or a message).',
    bad: true,
  },
};

/** The notice a redirect asked for, if it is one of NOTICES. */
export function Notice(props: { code: unknown }) {
  const notice = typeof props.code === 'string' ? NOTICES[props.code] : undefined;
  if (!notice) return null;
  return <output class={notice.bad ? 'notice bad' : 'notice'}>{notice.text}</output>;
}

/** A refusal shown on the page (the API's D2 message), next to the form that caused it. */
export function Refused(props: { message: string | undefined }) {
  if (!props.message) return null;
  return (
    <p class="notice bad" role="alert">
      {props.message}
    </p>
  );
}
