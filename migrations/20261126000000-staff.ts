import { type Kysely, sql } from 'kysely';

/**
 * Staff (D49). A store member has a role; members from before roles are owners. A store
 * always keeps an owner: a trigger refuses any change that takes the last one away, under the
 * store's row lock, so two concurrent demotions or removals cannot both pass. Each membership
 * carries the id its staff tokens are bound to (`staff_grant_id`); a role change replaces it
 * and revokes the old one through the feed (D13), a removal revokes it.
 *
 * A claim's state moves record the person who made them (`user_id`) beside the app's client id,
 * and an idempotency record (D33) belongs to an installation or to a member of a store.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table store_members
      add column role text not null default 'owner' check (role in ('owner', 'admin', 'agent', 'viewer')),
      add column staff_grant_id text not null default gen_random_uuid()::text;

    create function store_members_keep_an_owner() returns trigger language plpgsql as $$
    begin
      -- Every change that takes an owner away from a store waits here for the others, so the
      -- count below, a statement of its own, sees every one committed before it.
      perform 1 from stores where id = old.store_id for no key update;
      -- The store itself is being deleted: its members go with it.
      if not found then return null; end if;
      if not exists (select 1 from store_members where store_id = old.store_id and role = 'owner') then
        raise exception 'a store keeps at least one owner'
          using errcode = 'SV049', detail = old.store_id;
      end if;
      return null;
    end $$;
    create trigger store_members_keep_an_owner_on_update after update of role on store_members
      for each row when (old.role = 'owner' and new.role <> 'owner')
      execute function store_members_keep_an_owner();
    create trigger store_members_keep_an_owner_on_delete after delete on store_members
      for each row when (old.role = 'owner')
      execute function store_members_keep_an_owner();

    alter table revocations drop constraint revocations_kind_check;
    alter table revocations add constraint revocations_kind_check
      check (kind in ('token', 'grant', 'installation', 'membership'));

    alter table claim_state_changes add column user_id text;

    alter table idempotency_keys
      drop constraint idempotency_keys_pkey,
      alter column installation_id drop not null,
      add column store_id text references stores (id) on delete cascade,
      add column user_id text references dashboard_users (id) on delete cascade,
      add constraint idempotency_keys_owner_check check (
        (installation_id is not null and user_id is null and store_id is null)
        or (installation_id is null and user_id is not null and store_id is not null)
      );
    create unique index idempotency_keys_installation_key on idempotency_keys (installation_id, key);
    create unique index idempotency_keys_member_key on idempotency_keys (store_id, user_id, key);
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    delete from idempotency_keys where installation_id is null;
    drop index idempotency_keys_member_key;
    drop index idempotency_keys_installation_key;
    alter table idempotency_keys
      drop constraint idempotency_keys_owner_check,
      drop column user_id,
      drop column store_id,
      alter column installation_id set not null,
      add primary key (installation_id, key);

    alter table claim_state_changes drop column user_id;

    delete from revocations where kind = 'membership';
    alter table revocations drop constraint revocations_kind_check;
    alter table revocations add constraint revocations_kind_check check (kind in ('token', 'grant', 'installation'));

    drop trigger store_members_keep_an_owner_on_delete on store_members;
    drop trigger store_members_keep_an_owner_on_update on store_members;
    drop function store_members_keep_an_owner();
    alter table store_members drop column staff_grant_id, drop column role;
  `.execute(db);
}
