import type { Sql } from 'postgres';

/**
 * The floor's finding and inventory: the service's statements for a name or an id list, and
 * its sum over the inventory's slots, with only the parsing the queries need. The name query
 * is planned for each run, unprepared, as the service plans it (db/queries/pet-pages.ts): a
 * prepared statement's generic plan walks every id when the name is rare.
 */
const columns = 'id, name, category_id as "categoryId", status';

export function findPets(sql: Sql, query: URLSearchParams, limit: number) {
  const name = query.get('name');
  if (name !== null) {
    const pattern = `%${name.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
    return sql.unsafe(
      `select ${columns} from pets where lower(name) like lower($1) and deleted_at is null and id > $2 order by id limit $3`,
      [pattern, 0, limit],
      { prepare: false },
    );
  }
  return sql.unsafe(
    `select ${columns} from pets where id = any($1::text::bigint[]) and deleted_at is null and id > $2 order by id limit $3`,
    [`{${query.get('id') ?? ''}}`, 0, limit],
    { prepare: true },
  );
}

export async function inventory(sql: Sql) {
  const [row] = await sql`
    select
      coalesce(sum(count) filter (where status = 'available'), 0)::int as available,
      coalesce(sum(count) filter (where status = 'pending'), 0)::int as pending,
      coalesce(sum(count) filter (where status = 'sold'), 0)::int as sold
    from pet_inventory`;
  return row;
}
