import { hash } from '@node-rs/argon2';
import type { Role } from '@protection-service/contract';
import type { Db } from '../../db/database';
import { transact } from '../../db/transact';
import { newId } from '../../lib/ids';
import { refuse } from '../../lib/refusal';

/**
 * argon2id parameters (OWASP minimums: 19 MiB, 2 passes). `algorithm: 2` is the library's
 * const enum `Algorithm.Argon2id`, which isolated modules cannot import.
 */
const ARGON2_OPTIONS = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export interface DashboardUser {
  id: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
  storeIds: string[];
}

export async function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2_OPTIONS);
}

/** Creates a dashboard user (D8) who belongs to the given stores with one role there (D49; owner unless told). */
export async function createUser(
  db: Db,
  input: { email: string; password: string; storeIds: string[]; firstName?: string; lastName?: string; role?: Role },
): Promise<DashboardUser> {
  const role = input.role ?? 'owner';
  const user = {
    id: newId('usr'),
    email: input.email.trim().toLowerCase(),
    firstName: input.firstName ?? null,
    lastName: input.lastName ?? null,
  };
  const passwordHash = await hashPassword(input.password);
  await transact(db, async (trx) => {
    for (const storeId of input.storeIds) {
      const found = await trx.selectFrom('stores').select('id').where('id', '=', storeId).executeTakeFirst();
      if (!found) throw refuse.missing(`no store with id ${storeId}`);
    }
    const inserted = await trx
      .insertInto('dashboardUsers')
      .values({ ...user, passwordHash })
      .onConflict((oc) => oc.column('email').doNothing())
      .returning('id')
      .executeTakeFirst();
    if (!inserted) throw refuse.conflict(`a user with e-mail ${user.email} exists already`);
    if (input.storeIds.length > 0) {
      await trx
        .insertInto('storeMembers')
        .values(input.storeIds.map((storeId) => ({ storeId, userId: user.id, role })))
        .execute();
    }
  });
  return { ...user, storeIds: input.storeIds };
}
