import { SCOPE_ALIASES } from '../../scopes';
import type { VersionChange } from '../change';

/** Later scope name -> its earlier name (D16, reversed), where the earlier revision had one. */
const EARLIER_NAME = new Map<string, string>(
  Object.entries(SCOPE_ALIASES).flatMap(([earlier, later]) => (later ? [[later, earlier] as const] : [])),
);
const SCOPE_WORD = /[a-z][a-z-]*(?::[a-z][a-z-]*)+/g;

/** D16: the 403 answers of 2025-01-01 name the earlier scope names. */
export const earlierScopeNames: VersionChange = {
  id: 'earlier-scope-names',
  version: '2025-01-01',
  title: 'Missing-scope messages name the earlier scope names',
  description:
    'A 403 message names the earlier scope names (`write_orders`, `read_shipping_insurance_pricing`) where one exists, and the later name otherwise. Both spellings are accepted wherever scopes are requested, in every version.',
  why: 'The later names (`order:update`) group every scope as resource and action, and are the names tokens carry.',
  upgrade: 'Match 403 messages on the later names (`order:update`); request scopes by the later names.',
  error(answer) {
    if (answer.status !== 403 || typeof answer.body !== 'object' || answer.body === null) return answer;
    const body = answer.body as { message?: unknown };
    if (typeof body.message !== 'string') return answer;
    return {
      status: answer.status,
      body: { ...body, message: body.message.replace(SCOPE_WORD, (word) => EARLIER_NAME.get(word) ?? word) },
    };
  },
};
