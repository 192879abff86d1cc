/**
 * The scope catalog (D16), the earlier-style aliases and the rules a route's metadata uses
 * to say which scopes it needs. The server's auth middleware, the OpenAPI generator and the
 * contract test all read these; nothing else spells a scope.
 */

/** Later-style scope names (D16). */
export const SCOPES = [
  'order:read',
  'order:update',
  'claim:read',
  'claim:update',
  'claim:manage',
  'product:read',
  'product:update',
  'store:read',
  'partner-context:update',
  'store-credit:update',
  'quote:read',
  'analytics:read',
  'pricing:shipping-insurance:read',
  'pricing:shipping-insurance:update',
  'pricing:extended-warranty:read',
  'pricing:extended-warranty:update',
  'widget:cart:read',
  'widget:cart:update',
  'widget:checkout:read',
  'widget:checkout:update',
  'widget:info-modal:read',
  'widget:info-modal:update',
] as const;
export type Scope = (typeof SCOPES)[number];

export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  'order:read': 'Read orders and their fulfillments',
  'order:update': 'Create, replace and delete orders and fulfillments',
  'claim:read': 'Read claims',
  'claim:update': 'File claims and post claim messages',
  'claim:manage': 'Approve, deny and move claims between states',
  'product:read': 'Read the product catalogue',
  'product:update': 'Write the product catalogue',
  'store:read': 'Read merchant settings and partner contexts',
  'partner-context:update': "Write the app's partner context and cohorts",
  'store-credit:update': 'Override store-credit settings',
  'quote:read': 'Compute protection quotes',
  'analytics:read': 'Read analytics',
  'pricing:shipping-insurance:read': 'Read shipping-insurance pricing (admin-gated)',
  'pricing:shipping-insurance:update': 'Write shipping-insurance pricing (admin-gated)',
  'pricing:extended-warranty:read': 'Read extended-warranty pricing (admin-gated)',
  'pricing:extended-warranty:update': 'Write extended-warranty pricing (admin-gated)',
  'widget:cart:read': 'Read cart widget configs',
  'widget:cart:update': 'Write cart widget configs',
  'widget:checkout:read': 'Read checkout widget configs',
  'widget:checkout:update': 'Write checkout widget configs',
  'widget:info-modal:read': 'Read info-modal widget configs',
  'widget:info-modal:update': 'Write info-modal widget configs',
};

/**
 * Earlier-style names accepted wherever scopes are requested (D16). `write_settings` has no
 * later equivalent: it maps to null and is refused as `invalid_scope`.
 */
export const SCOPE_ALIASES: Record<string, Scope | null> = {
  read_orders: 'order:read',
  write_orders: 'order:update',
  read_claims: 'claim:read',
  write_claims: 'claim:update',
  manage_claims: 'claim:manage',
  read_products: 'product:read',
  write_products: 'product:update',
  read_store: 'store:read',
  write_settings: null,
  write_store_credit_settings: 'store-credit:update',
  read_quotes: 'quote:read',
  read_shipping_insurance_pricing: 'pricing:shipping-insurance:read',
  write_shipping_insurance_pricing: 'pricing:shipping-insurance:update',
  read_extended_warranty_pricing: 'pricing:extended-warranty:read',
  write_extended_warranty_pricing: 'pricing:extended-warranty:update',
  read_analytics: 'analytics:read',
};

const SCOPE_SET: ReadonlySet<string> = new Set(SCOPES);

export function isScope(value: string): value is Scope {
  return SCOPE_SET.has(value);
}

/**
 * Maps a requested scope name, later or earlier style, to its later-style name.
 * Returns null for names that are unknown or have no later equivalent.
 */
export function normalizeScope(name: string): Scope | null {
  if (isScope(name)) return name;
  return SCOPE_ALIASES[name] ?? null;
}

/** Pricing scopes are admin-gated (spec, D9). */
export function isAdminGatedScope(scope: Scope): boolean {
  return scope.startsWith('pricing:');
}

/** Rule-set types and the scope segment each maps to. */
export const PRICING_TYPES = ['SHIPPING', 'EXTENDED_WARRANTY'] as const;
export type PricingType = (typeof PRICING_TYPES)[number];
export const WIDGET_TYPES = ['CHECKOUT', 'CART', 'INFO_MODAL'] as const;
export type WidgetType = (typeof WIDGET_TYPES)[number];

const PRICING_SEGMENT: Record<PricingType, string> = {
  SHIPPING: 'shipping-insurance',
  EXTENDED_WARRANTY: 'extended-warranty',
};
const WIDGET_SEGMENT: Record<WidgetType, string> = {
  CHECKOUT: 'checkout',
  CART: 'cart',
  INFO_MODAL: 'info-modal',
};

export type Action = 'read' | 'update';

/** The scope that reads or writes pricing of one rule-set type. */
export function pricingScope(type: PricingType, action: Action): Scope {
  return `pricing:${PRICING_SEGMENT[type]}:${action}` as Scope;
}

/** The scope that reads or writes widget configs of one type. */
export function widgetScope(type: WidgetType, action: Action): Scope {
  return `widget:${WIDGET_SEGMENT[type]}:${action}` as Scope;
}

/**
 * A route's scope requirement.
 * - `none`: no scope (public, client, dashboard routes).
 * - `anyOf`: the token holds at least one of these (the spec's group rule).
 * - `conditional`: `base` always, `extra` too when the body carries store-credit fields.
 * - `perType`: the scope of the addressed resource's type (pricing or widget family), and
 *   `requires` as well. `onMissing` says what a token lacking the type's scope gets: a
 *   filtered list, 404 (existence hidden), or 403 (a create naming the type in its body).
 *   `note` is the human remark `routes.tsv` and the OpenAPI descriptions carry.
 */
export type ScopeRule =
  | { kind: 'none' }
  | { kind: 'anyOf'; scopes: readonly Scope[] }
  | { kind: 'conditional'; base: Scope; extra: Scope; when: 'store-credit fields' }
  | {
      kind: 'perType';
      family: 'pricing' | 'widget';
      action: Action;
      requires?: Scope;
      onMissing: 'filter' | '404' | '403';
      note?: string;
    };

export const noScope: ScopeRule = { kind: 'none' };
export const anyOf = (...scopes: Scope[]): ScopeRule => ({ kind: 'anyOf', scopes });

/** Every scope of one family and action, for example all pricing read scopes. */
export function familyScopes(family: 'pricing' | 'widget', action: Action): Scope[] {
  return family === 'pricing'
    ? PRICING_TYPES.map((t) => pricingScope(t, action))
    : WIDGET_TYPES.map((t) => widgetScope(t, action));
}

/**
 * The scopes that satisfy an action on one type: a read also accepts the type's update scope
 * (D16 group rule: "a read route accepts the read or any write/manage scope of its group").
 */
export function acceptedPricingScopes(type: PricingType, action: Action): Scope[] {
  return action === 'read'
    ? [pricingScope(type, 'read'), pricingScope(type, 'update')]
    : [pricingScope(type, 'update')];
}
export function acceptedWidgetScopes(type: WidgetType, action: Action): Scope[] {
  return action === 'read' ? [widgetScope(type, 'read'), widgetScope(type, 'update')] : [widgetScope(type, 'update')];
}

/** Every scope that satisfies a family's action for at least one type. */
export function acceptedFamilyScopes(family: 'pricing' | 'widget', action: Action): Scope[] {
  return family === 'pricing'
    ? PRICING_TYPES.flatMap((t) => acceptedPricingScopes(t, action))
    : WIDGET_TYPES.flatMap((t) => acceptedWidgetScopes(t, action));
}

/**
 * Renders a rule in the notation of `routes.tsv`, so the contract test can compare the two
 * and the OpenAPI descriptions say the same thing.
 */
export function formatScopeRule(rule: ScopeRule): string {
  switch (rule.kind) {
    case 'none':
      return '-';
    case 'anyOf':
      return rule.scopes.join('|');
    case 'conditional':
      return `${rule.base} (+${rule.extra} for ${rule.when})`;
    case 'perType': {
      const own = `${rule.family}:<type>:${rule.action}`;
      const base = rule.requires ? `${rule.requires} + ${own}` : own;
      return rule.note ? `${base} (${rule.note})` : base;
    }
  }
}

/** The roles of a store's members (D49), most powerful first. */
export const ROLES = ['owner', 'admin', 'agent', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/**
 * What each role may do, as D16 scopes (D49): a staff token carries its role's scopes and is
 * refused by the same checks as an app's. Owner and admin hold every scope but
 * `partner-context:update` (a partner context is an installed app's own).
 */
export const ROLE_SCOPES: Readonly<Record<Role, readonly Scope[]>> = {
  owner: SCOPES.filter((s) => s !== 'partner-context:update'),
  admin: SCOPES.filter((s) => s !== 'partner-context:update'),
  agent: ['claim:read', 'claim:update', 'claim:manage', 'order:read', 'product:read', 'store:read'],
  viewer: ['claim:read', 'order:read', 'store:read', 'analytics:read'],
};

/** Each role in the words people read (D50): the dashboard's pages and the invitation e-mail. */
export const ROLE_WORDS: Readonly<Record<Role, string>> = {
  owner: 'Owner',
  admin: 'Admin',
  agent: 'Claims agent',
  viewer: 'Viewer',
};

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}
