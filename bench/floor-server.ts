import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import postgres from 'postgres';

/**
 * The floor: what a bare node:http + postgres.js server costs for the service's SQL, with
 * prepared statements (postgres.js names and caches them by default). It checks the bearer key
 * and reads the inputs only as far as the queries need; the service does all the contract asks
 * on top. It answers the bench's reads (a page, a page by status, name or ids, a pet, the
 * inventory) and creates; the other writes run on the service alone. Nothing of the service is
 * imported: the statements are copies of the service's.
 * argv: database URL, API key, port.
 */
const sql = postgres(process.argv[2] ?? '', { max: 10 });
const key = `Bearer ${process.argv[3] ?? ''}`;
const port = Number(process.argv[4] ?? 0);
const STATUSES = new Set(['available', 'pending', 'sold']);
const COLUMNS = 'id, name, category_id as "categoryId", status';
/** The service's advisory lock keys: creates are serialised until commit, events appended in order. */
const PET_ID_ORDER_LOCK = 7_246_110_843;
const EVENT_ORDER_LOCK = 7_246_110_845;

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(payload),
    ...headers,
  });
  res.end(payload);
}

const notFound = { code: 'NOT_FOUND', message: 'no', status: 404 };

const toPet = (row: postgres.Row) => ({
  id: Number(row.id),
  name: row.name as string,
  categoryId: Number(row.categoryId),
  status: row.status as string,
});

/**
 * The service's statement for a name or an id list. The name query is planned for each run,
 * unprepared, as the service plans it: a prepared statement's generic plan walks every id when
 * the name is rare.
 */
function findPets(query: URLSearchParams, limit: number) {
  const name = query.get('name');
  if (name !== null) {
    const pattern = `%${name.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
    return sql.unsafe(
      `select ${COLUMNS} from pets where lower(name) like lower($1) and deleted_at is null and id > $2 order by id limit $3`,
      [pattern, 0, limit],
      { prepare: false },
    );
  }
  return sql.unsafe(
    `select ${COLUMNS} from pets where id = any($1::text::bigint[]) and deleted_at is null and id > $2 order by id limit $3`,
    [`{${query.get('id') ?? ''}}`, 0, limit],
    { prepare: true },
  );
}

function page(query: URLSearchParams) {
  const limit = Number(query.get('limit') ?? 20);
  if (query.has('name') || query.has('id')) return findPets(query, limit);
  const status = query.get('status');
  return status && STATUSES.has(status)
    ? sql`select id, name, category_id as "categoryId", status from pets where status = ${status} and deleted_at is null and id > ${0} order by id limit ${limit}`
    : sql`select id, name, category_id as "categoryId", status from pets where deleted_at is null and id > ${0} order by id limit ${limit}`;
}

/** The service's sum over the inventory's slots. */
async function inventory() {
  const [row] = await sql`
    select
      coalesce(sum(count) filter (where status = 'available'), 0)::int as available,
      coalesce(sum(count) filter (where status = 'pending'), 0)::int as pending,
      coalesce(sum(count) filter (where status = 'sold'), 0)::int as sold
    from pet_inventory`;
  return row;
}

async function readJson(req: IncomingMessage): Promise<{ name: string; categoryId: number }> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as { name: string; categoryId: number };
}

/**
 * One create as the service writes a lone one: the insert and its `pet.created` event in one
 * statement, under the lock that serialises inserts until commit. The event goes to
 * `floor_events` (bench/seed.ts), so that the service's feed never delivers the floor's work.
 */
async function create(req: IncomingMessage) {
  const pet = await readJson(req);
  const [row] = await sql`
    with id_order as (select pg_advisory_xact_lock(${PET_ID_ORDER_LOCK})),
    inserted as (
      insert into pets (name, category_id, status)
      select ${pet.name}, ${pet.categoryId}::bigint, 'available'::pet_status from id_order
      returning id, name, category_id, status
    ),
    event_order as (select pg_advisory_xact_lock_shared(${EVENT_ORDER_LOCK}) from id_order),
    appended as (
      insert into floor_events (type, data)
      select 'pet.created', jsonb_build_object(
        'id', i.id, 'name', i.name, 'categoryId', i.category_id, 'status', i.status)
      from event_order, inserted as i
      returning id
    )
    select i.id, i.name, i.category_id as "categoryId", i.status from inserted as i, appended`;
  return toPet(row ?? {});
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.headers.authorization !== key) {
    send(res, 401, { code: 'UNAUTHORIZED', message: 'no', status: 401 });
    return;
  }
  const url = new URL(req.url ?? '/', 'http://floor');
  if (url.pathname === '/v1/pets' && req.method === 'GET') {
    send(res, 200, (await page(url.searchParams)).map(toPet));
    return;
  }
  if (url.pathname === '/v1/pets' && req.method === 'POST') {
    const created = await create(req);
    send(res, 201, created, { location: `http://floor/v1/pets/${created.id}` });
    return;
  }
  if (url.pathname === '/v1/store/inventory' && req.method === 'GET') {
    const counts = await inventory();
    send(res, 200, counts, { etag: `"${counts?.available}.${counts?.pending}.${counts?.sold}"` });
    return;
  }
  const petId = /^\/v1\/pets\/(\d+)$/.exec(url.pathname)?.[1];
  if (petId && req.method === 'GET') {
    const [row] =
      await sql`select id, name, category_id as "categoryId", status, version from pets where id = ${Number(petId)} and deleted_at is null`;
    if (row) send(res, 200, toPet(row));
    else send(res, 404, notFound);
    return;
  }
  send(res, 404, notFound);
}

createServer((req, res) => {
  handle(req, res).catch(() => {
    send(res, 500, { code: 'INTERNAL_SERVER_ERROR', message: 'error', status: 500 });
  });
}).listen(port, '127.0.0.1');
