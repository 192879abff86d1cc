import { CLAIM_QUEUES } from '@protection-service/contract';
import { describe, expect, it } from 'vitest';
import { newestRollupSql, rollupMigration } from '../../../scripts/rollup-migration';
import { APPROVAL_STATES, DECISION_STATES, rollupSql } from '../../src/domain/analytics/definition';

/**
 * D52's rollups are defined once (server/src/domain/analytics/definition.ts); the database
 * objects they imply run from the SQL a migration carries as text. The two must agree: a
 * change to the definition (a sum, a counted column, a queue's states) is followed by a new
 * migration carrying its SQL (`pnpm rollups:migration <timestamp>-<name>`).
 */
describe('the rollup definition and the migrations (D52)', () => {
  it('emits exactly the SQL of the newest migration that carries rollup SQL', () => {
    const newest = newestRollupSql();
    expect(newest, 'no migration carries ROLLUP_SQL').toBeDefined();
    expect(
      rollupSql(),
      `the rollup definition differs from ${newest?.name}: run pnpm rollups:migration <timestamp>-<name>`,
    ).toBe(newest?.sql);
  });

  it('takes the decision and approval states from the claim queues (D22, D51)', () => {
    expect(DECISION_STATES).toEqual([...CLAIM_QUEUES.approved, ...CLAIM_QUEUES.declined]);
    expect(APPROVAL_STATES).toEqual(CLAIM_QUEUES.approved);
    for (const states of Object.values(CLAIM_QUEUES))
      for (const state of states) expect(rollupSql()).toContain(`'${state}'`);
  });

  it('writes a migration whose down restores the SQL before it', () => {
    const text = rollupMigration('select 2;', { name: '20990101000000-earlier', sql: 'select 1;' });
    expect(text).toContain('export const ROLLUP_SQL = `select 2;`');
    expect(text).toContain('const PREVIOUS_ROLLUP_SQL = `select 1;`');
    expect(() => rollupMigration('select `x`;', undefined)).toThrow(/backtick/);
    expect(() => rollupMigration("select E'\\n';", undefined)).toThrow(/backslash/);
  });
});
