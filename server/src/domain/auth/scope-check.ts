import { acceptedFamilyScopes, hasStoreCreditFields, type Scope, type ScopeRule } from '@protection-service/contract';

type ScopeVerdict = { ok: true } | { ok: false; required: Scope[] };

/**
 * What a route's scope rule (D16, routes.tsv) asks of a token's scopes, before the handler
 * runs. A `perType` rule passes here when the token holds the family's scope for at least one
 * type; which type the resource has is the handler's question (404-hiding, list filtering).
 * `required` names what would have satisfied the rule, for the 403 message.
 */
export function checkScopes(rule: ScopeRule, held: ReadonlySet<Scope>, body: unknown): ScopeVerdict {
  switch (rule.kind) {
    case 'none':
      return { ok: true };
    case 'anyOf':
      return rule.scopes.some((s) => held.has(s)) ? { ok: true } : { ok: false, required: [...rule.scopes] };
    case 'conditional': {
      if (!held.has(rule.base)) return { ok: false, required: [rule.base] };
      const wantsExtra =
        typeof body === 'object' && body !== null && hasStoreCreditFields(body as Record<string, unknown>);
      return wantsExtra && !held.has(rule.extra) ? { ok: false, required: [rule.extra] } : { ok: true };
    }
    case 'perType': {
      if (rule.requires && !held.has(rule.requires)) return { ok: false, required: [rule.requires] };
      const family = acceptedFamilyScopes(rule.family, rule.action);
      return family.some((s) => held.has(s)) ? { ok: true } : { ok: false, required: family };
    }
  }
}
