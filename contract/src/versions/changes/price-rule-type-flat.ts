import { z } from 'zod';
import { ZPriceTerm } from '../../schemas/pricing';
import { schemaChange, type VersionChange } from '../change';

/** A price term as 2025-01-01 reads it: `flat` where its successor says `fixed` (D30). */
export const ZPriceTermFlat = ZPriceTerm.extend({
  type: z.enum(['flat', 'percentage']).describe('`flat` (an amount in major units) or `percentage` of the subtotal'),
}).strict();

/** D30: rule terms read `flat` on 2025-01-01; both words are accepted on write in every version. */
export const priceRuleTypeFlat: VersionChange = {
  id: 'price-rule-type-flat',
  version: '2025-01-01',
  title: 'Price rule terms read `flat`',
  description:
    'A price rule term of a fixed amount reads `"type": "flat"` in every answer that carries rules (rule sets, cohort price sets, the partner context view). Writes accept `flat` and `fixed` in every version.',
  why: '`fixed` names what the amount is (a fixed amount, as opposed to a percentage) and matches the rest of the money vocabulary.',
  upgrade: 'Read `fixed` where you read `flat`; send either (both are accepted).',
  ...schemaChange(ZPriceTerm, ZPriceTermFlat, (terms) => {
    for (const term of terms) if (term.type === 'fixed') term.type = 'flat';
  }),
};
