/**
 * The layers of the repository, checked by `pnpm deps` in CI (dependency-cruiser): a new import
 * that crosses one the wrong way, or closes a cycle (type-only imports included), fails.
 * docs/architecture.md explains the layers.
 */
/**
 * The domain areas each area may import (`server/src/domain/<area>/`): imports between areas go
 * one way, from the areas that compose others down to those they compose. An area missing here
 * may import no other; the table itself may hold no cycle (checked when this file loads).
 */
const DOMAIN_AREAS = {
  identity: [],
  // The one recorder of who did what (D53), written in the transaction of each change.
  audit: ['identity'],
  auth: ['identity', 'audit'],
  partner: ['identity', 'audit'],
  webhooks: ['identity'],
  // Shipment tracking (D54): its events' webhooks, its sources' and rules' audit lines.
  tracking: ['audit', 'identity', 'webhooks'],
  // A fulfillment PUT is one of tracking's ways in (D54).
  commerce: ['webhooks', 'tracking'],
  mail: ['partner'],
  // Files (D56): uploads and their storage; a claim or message attaches the files it names.
  files: [],
  claims: ['audit', 'commerce', 'files', 'mail', 'partner', 'webhooks'],
  // A test store's reset (D45) empties its analytics rollups, named by their one definition (D52).
  'test-mode': ['analytics', 'claims', 'mail', 'webhooks'],
  // The ends of an installation reach into each area they clean up (D14, D45).
  uninstall: ['audit', 'auth', 'identity', 'partner', 'webhooks'],
  // A store's team (D53): memberships and their staff grants, the invitation's e-mail, the audit line.
  team: ['audit', 'auth', 'identity', 'mail'],
  // Shipment tracking's rules (D54) acting on packages: claims filed as every claim is, and alerts.
  'tracking-claims': ['claims', 'commerce', 'tracking', 'webhooks'],
};

/** Throws when an area reaches itself through the table: two areas importing each other, or a longer loop. */
function assertOneWay(areas) {
  const visit = (area, path) => {
    if (path.includes(area)) throw new Error(`domain areas import each other: ${[...path, area].join(' -> ')}`);
    for (const next of areas[area] ?? []) visit(next, [...path, area]);
  };
  for (const area of Object.keys(areas)) visit(area, []);
}
assertOneWay(DOMAIN_AREAS);

const areaRules = Object.entries(DOMAIN_AREAS).map(([area, allowed]) => ({
  name: `domain-${area}-imports`,
  severity: 'error',
  comment: `The ${area} area imports ${allowed.length ? `only the ${allowed.join(', ')} area(s)` : 'no other area'} (DOMAIN_AREAS): areas depend one way.`,
  from: { path: `^server/src/domain/${area}/` },
  to: { path: '^server/src/domain/', pathNot: `^server/src/domain/(${[area, ...allowed].join('|')})/` },
}));

/**
 * The pages outside the dashboard that call domain code in-process, each for its reason. Every
 * other page acts through the public API (the dashboard through the SDK, D50); a page missing
 * here may import no domain code.
 */
const PAGES_WITH_DOMAIN = {
  // The install consent (D40) is what grants an app its token: there is no token yet to call the API with.
  'authorize.tsx': 'grants the install',
  'authorize-request.ts': 'reads the install request the grant is checked against',
  // The browser session and CSRF tokens (D40) are the pages' own credentials, signed with the service's key.
  'browser-session.ts': 'keeps the browser session',
  // Signing in (D50) checks a password, before any token exists.
  'sign-in.ts': 'checks the dashboard password',
  // The shopper's claim page (D41) is opened by a capability link, not a token: its reads and writes are the link's.
  'claim.tsx': "acts for the claim link's bearer",
  // The invitation (D53) is accepted by someone with no account yet.
  'invitation.tsx': 'accepts an invitation',
  // The pages' mount gives the dashboard its port: the person's stores and the staff token it calls the API with (D50).
  'index.tsx': "issues the dashboard's token",
  // The storefront demo (D55, development installs only) looks up the seeded demo store to say when it is missing.
  'demo-storefront.tsx': 'finds the seeded demo store',
  // A file's capability link (D56), like the claim link, is its own credential: no token exists to call the API with.
  'files.ts': "serves the file link's bytes",
  // The shopper's claim form (D56) is used by someone with only an order number and an e-mail: no token exists.
  'claim-form/forms.ts': 'finds the order and files the shopper claim',
  'claim-form/render.tsx': 'shows the order the form found',
  'claim-form/views.tsx': 'shows the order the form found',
};

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...areaRules,
    {
      name: 'domain-area-listed',
      severity: 'error',
      comment: 'Every domain area says in DOMAIN_AREAS which areas it may import.',
      from: {
        path: '^server/src/domain/([^/]+)/',
        pathNot: `^server/src/domain/(${Object.keys(DOMAIN_AREAS).join('|')})/`,
      },
      to: { path: '^server/src/domain/', pathNot: '^server/src/domain/$1/' },
    },
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'Modules form no import cycle, type-only imports included: each layer stands on the ones below it.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'domain-without-http',
      severity: 'error',
      comment:
        'Domain rules know nothing of HTTP, the route handlers, the app, the job runner or the process configuration: values are passed in.',
      from: { path: '^server/src/domain/' },
      to: { path: '^server/src/(http|routes|pages)/|^server/src/(app|config|main|worker|job-runner)\\.ts$' },
    },
    {
      name: 'db-below-domain',
      severity: 'error',
      comment: 'The database layer serves the domain and never reaches up into it (or above it).',
      from: { path: '^server/src/db/' },
      to: { path: '^server/src/(domain|cache|http|routes|pages)/|^server/src/(app|main|worker|job-runner)\\.ts$' },
    },
    {
      name: 'lib-stands-alone',
      severity: 'error',
      comment: 'Helpers shared by several areas depend on no area and no layer above them.',
      from: { path: '^server/src/lib/' },
      to: {
        path: '^server/src/(domain|cache|db|http|routes|pages)/|^server/src/(app|config|main|worker|job-runner)\\.ts$',
      },
    },
    {
      name: 'cache-without-http',
      severity: 'error',
      comment: 'Caches and their invalidation are used by the pipeline and the domain, not the other way round.',
      from: { path: '^server/src/cache/' },
      to: { path: '^server/src/(http|routes|pages)/|^server/src/(app|main|worker|job-runner)\\.ts$' },
    },
    {
      name: 'runtime-below-the-code',
      severity: 'error',
      comment:
        'The devices that reach under libraries (server/src/runtime/) are used by the plumbing (http/, db/, the app and process entries), never by domain rules, route handlers or pages; and they use nothing of the service.',
      from: { path: '^server/src/(domain|routes|pages)/' },
      to: { path: '^server/src/runtime/' },
    },
    {
      name: 'runtime-stands-alone',
      severity: 'error',
      comment: 'A device depends on the libraries it reaches under and on its folder, nothing else of the service.',
      from: { path: '^server/src/runtime/' },
      to: { path: '^server/src/(?!runtime/)' },
    },
    {
      name: 'dashboard-through-the-api',
      severity: 'error',
      comment:
        'D50: the dashboard acts only through the public API, with a staff token, through the SDK. Its pages import no domain, database or HTTP-pipeline code; what they need of the session comes through DashboardPort.',
      from: { path: '^server/src/pages/dashboard/' },
      to: { path: '^server/src/(domain|db|http|routes|cache|runtime)/' },
    },
    {
      name: 'pages-domain-named',
      severity: 'error',
      comment: `Only the pages named in PAGES_WITH_DOMAIN call domain code, each for its reason (${Object.keys(PAGES_WITH_DOMAIN).join(', ')}).`,
      from: {
        path: '^server/src/pages/',
        pathNot: `^server/src/pages/(dashboard/|(${Object.keys(PAGES_WITH_DOMAIN).join('|').replaceAll('.', '\\.')})$)`,
      },
      to: { path: '^server/src/domain/' },
    },
    {
      name: 'dashboard-views-types-only',
      severity: 'error',
      comment:
        "A dashboard view renders what it is given: from the SDK it imports types only; the calls are its area's load and routes (D50).",
      from: { path: '^server/src/pages/dashboard/.*(/|-)views\\.tsx$' },
      to: { path: '^sdk/src/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'handlers-map-nothing',
      severity: 'error',
      comment:
        'Handlers map nothing: the domain refuses (lib/refusal.ts), and only the pipeline builds HTTP errors and statuses.',
      from: { path: '^server/src/routes/' },
      to: { path: '^server/src/http/errors' },
    },
    {
      name: 'contract-is-the-root',
      severity: 'error',
      comment: 'The contract is the source the server and the SDK derive from; it imports neither.',
      from: { path: '^contract/src/' },
      to: { path: '^(server|sdk|scripts|migrations)/' },
    },
    {
      name: 'sdk-without-server',
      severity: 'error',
      comment: 'The published SDK carries the contract only, never server code.',
      from: { path: '^sdk/src/' },
      to: { path: '^(server|scripts|migrations)/' },
    },
    {
      name: 'migrations-import-nothing-that-changes',
      severity: 'error',
      comment:
        'A shipped migration runs the same on every database for ever: it imports no service, contract, SDK or script code, which changes (contract/test/migrations.test.ts names the one import of another, shipped migration).',
      from: { path: '^migrations/' },
      to: { path: '^(server|contract|sdk|scripts)/' },
    },
    {
      name: 'no-unresolvable',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist|\\.tmp)/' },
    // Type-only imports count: a cycle through types is a cycle of understanding too.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['source', 'import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'],
    },
  },
};
