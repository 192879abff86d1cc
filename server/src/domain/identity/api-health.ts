import { API_VERSIONS, isApiVersion, type TApiHealth, VERSION_LIFECYCLE } from '@protection-service/contract';
import { sql } from 'kysely';
import type { Db } from '../../db/database';
import { ownedApp } from './apps';

/** The report covers this many days, today included (D44). */
const API_HEALTH_DAYS = 30;

/**
 * The owner's app's calls per dated version over the last 30 days (D44), every version listed
 * newest first (with 0 calls where it had none), with its deprecation and sunset; another
 * user's app answers as a missing one (D9).
 */
export async function apiHealth(db: Db, clientId: string, ownerUserId: string): Promise<TApiHealth> {
  await ownedApp(db, clientId, ownerUserId);
  const rows = await db
    .selectFrom('apiVersionCalls')
    .select(['apiVersion', sql<string>`sum(calls)`.as('calls'), sql<Date>`max(last_call_at)`.as('lastCallAt')])
    .where('clientId', '=', clientId)
    .where(sql<boolean>`day > (now() at time zone 'utc')::date - ${API_HEALTH_DAYS}::int`)
    .groupBy('apiVersion')
    .execute();
  const used = new Map(rows.filter((r) => isApiVersion(r.apiVersion)).map((r) => [r.apiVersion, r]));
  return {
    versions: API_VERSIONS.map((version) => {
      const row = used.get(version);
      const life = VERSION_LIFECYCLE[version];
      return {
        version,
        calls: row ? Number(row.calls) : 0,
        lastCallAt: row ? new Date(row.lastCallAt).toISOString() : null,
        deprecated: life.deprecated,
        sunset: life.sunset,
      };
    }),
  };
}
