import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import postgres from 'postgres';
import type { ContractWork, PageQuery, PetItem } from './contract-work.js';
import { findPets, inventory } from './floor-finding.js';
import { broadcast, follow } from './floor-followers.js';

/**
 * The floor: what a bare node:http + postgres server costs for the same SQL, with prepared
 * statements (postgres.js names and caches them by default). It checks the bearer key and the
 * inputs only as far as the queries need; the service must do all the contract asks on top.
 * `GET /v1/events` follows the changes as the service's feed does, in batches of 20 ms
 * (bench/floor-followers.ts), so that a scenario run with streams open on both compares the
 * same work.
 */
const sql = postgres(process.argv[2] ?? '', { max: 10 });
const key = `Bearer ${process.argv[3] ?? ''}`;
const port = Number(process.argv[4] ?? 0);
/**
 * `--contract-work`: the contract's per-request work on top (bench/contract-work.ts), loaded
 * only then, so that the bare floor carries none of its modules.
 */
const contract =
  process.argv[5] === '--contract-work'
    ? (await import('./contract-work.js')).contractWork(
        process.argv[3] ?? '',
        `http://127.0.0.1:${String(port)}`,
      )
    : undefined;
const STATUSES = new Set(['available', 'pending', 'sold']);

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
    // Every answer carries the contract's headers, also where a route passes its own.
    ...(contract ? { ...contract.headers(res), ...headers } : headers),
  });
  res.end(payload);
}

async function readJson<T = { name: string; categoryId: number; status?: string }>(
  req: IncomingMessage,
): Promise<T> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as T;
}

const ORDER_ID_ORDER_LOCK = 7_246_110_844;
const PET_ID_ORDER_LOCK = 7_246_110_843;
const EVENT_ORDER_LOCK = 7_246_110_845;

/** The contract records every change as an event in its transaction: the service's statement. */
function appendEvents(tx: postgres.TransactionSql, events: { type: string; data: unknown }[]) {
  return tx`
    with event_order as (select pg_advisory_xact_lock_shared(${EVENT_ORDER_LOCK})),
    input as (
      select e.event, e.ord from jsonb_array_elements(${JSON.stringify(events)}::text::jsonb)
        with ordinality as e(event, ord)
    )
    insert into floor_events (type, data)
    select (input.event->>'type')::event_type, input.event->'data'
    from event_order, input order by input.ord
    returning id, type, occurred_at, data`;
}
/** The version is read as the service reads it, but the floor sends no ETag: no extra headers. */
const toPet = (row: postgres.Row) => ({
  id: Number(row.id),
  name: row.name as string,
  categoryId: Number(row.categoryId),
  status: row.status as string,
});
const conflict = { code: 'CONFLICT', message: 'no', status: 409 };
const toOrder = (row: postgres.Row) => ({
  id: Number(row.id),
  petId: Number(row.pet_id),
  status: row.status as string,
  placedAt: (row.placed_at as Date).toISOString(),
  updatedAt: (row.updated_at as Date).toISOString(),
});

/** The statements updatePet runs for a status change, in one transaction. */
async function updateStatus(res: ServerResponse, id: number, status: string): Promise<void> {
  const appended: postgres.Row[] = [];
  const pet = await sql.begin(async (tx) => {
    const [row] =
      await tx`select id, name, category_id, status, version from pets where id = ${id} and deleted_at is null for update`;
    if (!row) return undefined;
    const [open] =
      await tx`select id from orders where pet_id = ${id} and status in ('placed', 'approved') limit 1`;
    if (open) return undefined;
    const [updated] =
      await tx`update pets set status = ${status}, version = version + 1 where id = ${id} and deleted_at is null returning id, name, category_id as "categoryId", status, version`;
    if (updated)
      appended.push(...(await appendEvents(tx, [{ type: 'pet.updated', data: toPet(updated) }])));
    return updated;
  });
  broadcast(appended);
  if (!pet) {
    send(res, 409, conflict);
    return;
  }
  send(res, 200, toPet(pet));
}

/** The statements placeOrder runs, in one transaction. */
async function placeOrder(res: ServerResponse, petId: number): Promise<void> {
  const appended: postgres.Row[] = [];
  const order = await sql.begin(async (tx) => {
    const [pet] =
      await tx`select id, name, category_id, status, version from pets where id = ${petId} and deleted_at is null for update`;
    if (pet?.status !== 'available') return undefined;
    const [reserved] =
      await tx`update pets set status = 'pending', version = version + 1 where id = ${petId} and deleted_at is null returning id, name, category_id as "categoryId", status, version`;
    await tx`select pg_advisory_xact_lock_shared(${ORDER_ID_ORDER_LOCK})`;
    const [row] =
      await tx`insert into orders (pet_id) values (${petId}) returning id, pet_id, status, placed_at, updated_at`;
    if (row && reserved) {
      appended.push(
        ...(await appendEvents(tx, [
          { type: 'order.placed', data: toOrder(row) },
          { type: 'pet.updated', data: toPet(reserved) },
        ])),
      );
    }
    return row;
  });
  broadcast(appended);
  if (!order) {
    send(res, 409, conflict);
    return;
  }
  send(res, 201, toOrder(order), { location: `http://floor/v1/store/orders/${String(order.id)}` });
}

/** The statements updateOrder runs to cancel, in one transaction. */
async function cancelOrder(res: ServerResponse, id: number): Promise<void> {
  const appended: postgres.Row[] = [];
  const order = await sql.begin(async (tx) => {
    const [seen] = await tx`select pet_id from orders where id = ${id} limit 1`;
    if (!seen) return undefined;
    await tx`select id from pets where id = ${seen.pet_id as string} and deleted_at is null for update`;
    const [row] = await tx`select id, status from orders where id = ${id} for update`;
    if (row?.status !== 'placed' && row?.status !== 'approved') return undefined;
    const [freed] =
      await tx`update pets set status = 'available', version = version + 1 where id = ${seen.pet_id as string} returning id, name, category_id as "categoryId", status, version`;
    const [updated] =
      await tx`update orders set status = 'cancelled', updated_at = now() where id = ${id} returning id, pet_id, status, placed_at, updated_at`;
    if (updated && freed) {
      appended.push(
        ...(await appendEvents(tx, [
          { type: 'order.updated', data: toOrder(updated) },
          { type: 'pet.updated', data: toPet(freed) },
        ])),
      );
    }
    return updated;
  });
  broadcast(appended);
  if (!order) {
    send(res, 409, conflict);
    return;
  }
  send(res, 200, toOrder(order));
}

const toItem = (row: postgres.Row) => ({
  ...row,
  id: Number(row.id),
  categoryId: Number(row.categoryId),
});

function pageRows(query: URLSearchParams, status: string | null | undefined, limit: number) {
  if (query.has('name') || query.has('id')) return findPets(sql, query, limit);
  return status && STATUSES.has(status)
    ? sql`select id, name, category_id as "categoryId", status from pets where status = ${status} and deleted_at is null and id > ${0} order by id limit ${limit}`
    : sql`select id, name, category_id as "categoryId", status from pets where deleted_at is null and id > ${0} order by id limit ${limit}`;
}

/**
 * A page with the contract's work: its query and items checked, one row more read for the next
 * link. A query that fails its check is a 400, as the service answers it.
 */
async function contractPage(query: URLSearchParams, res: ServerResponse, work: ContractWork) {
  let checked: PageQuery;
  try {
    checked = work.pageQuery(query);
  } catch {
    send(res, 400, { code: 'BAD_REQUEST', message: 'Invalid query', status: 400 });
    return;
  }
  const rows = await pageRows(query, checked.status, checked.limit + 1);
  const items = rows.slice(0, checked.limit).map(toItem) as PetItem[];
  const headers = work.headers(res);
  send(res, 200, work.page(items, rows.length > checked.limit, checked, headers), headers);
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  // With the contract's work, `admit` has checked the key already.
  if (!contract && req.headers.authorization !== key) {
    send(res, 401, { code: 'UNAUTHORIZED', message: 'no', status: 401 });
    return;
  }
  const url = new URL(req.url ?? '/', 'http://floor');
  if (url.pathname === '/v1/events' && req.method === 'GET') {
    follow(res);
    return;
  }
  if (url.pathname === '/v1/pets' && req.method === 'GET') {
    if (contract) {
      await contractPage(url.searchParams, res, contract);
      return;
    }
    const limit = Number(url.searchParams.get('limit') ?? 20);
    const rows = await pageRows(url.searchParams, url.searchParams.get('status'), limit);
    send(res, 200, rows.map(toItem));
    return;
  }
  if (url.pathname === '/v1/pets' && req.method === 'POST') {
    const pet = await readJson(req);
    const [row] = await sql`
        with id_order as (select pg_advisory_xact_lock(${PET_ID_ORDER_LOCK})),
        inserted as (
          insert into pets (name, category_id, status)
          select ${pet.name}, ${pet.categoryId}::bigint, ${pet.status ?? 'available'}::pet_status from id_order
          returning id, name, category_id, status, version
        ),
        event_order as (select pg_advisory_xact_lock_shared(${EVENT_ORDER_LOCK}) from id_order),
        appended as (
          insert into floor_events (type, data)
          select 'pet.created', jsonb_build_object(
            'id', i.id, 'name', i.name, 'categoryId', i.category_id, 'status', i.status)
          from event_order, inserted as i
          returning id, type, occurred_at, data
        )
        select i.id, i.name, i.category_id as "categoryId", i.status,
          a.id as event_id, a.type, a.occurred_at, a.data
        from inserted as i, appended as a`;
    const created = toPet(row ?? {});
    if (row) broadcast([{ ...row, id: row.event_id as string }]);
    send(res, 201, created, { location: `http://floor/v1/pets/${created.id}` });
    return;
  }
  if (url.pathname === '/v1/store/inventory' && req.method === 'GET') {
    const counts = await inventory(sql);
    send(res, 200, counts, { etag: `"${counts?.available}.${counts?.pending}.${counts?.sold}"` });
    return;
  }
  const match = /^\/v1\/pets\/(\d+)$/.exec(url.pathname);
  if (match && req.method === 'PATCH') {
    const { status } = await readJson<{ status: string }>(req);
    return updateStatus(res, Number(match[1]), status);
  }
  if (url.pathname === '/v1/store/orders' && req.method === 'POST') {
    const { petId } = await readJson<{ petId: number }>(req);
    return placeOrder(res, petId);
  }
  const order = /^\/v1\/store\/orders\/(\d+)$/.exec(url.pathname);
  if (order && req.method === 'PATCH') {
    await readJson(req);
    return cancelOrder(res, Number(order[1]));
  }
  if (match && req.method === 'GET') {
    const [row] =
      await sql`select id, name, category_id as "categoryId", status, version from pets where id = ${Number(match[1])} and deleted_at is null`;
    if (!row) {
      send(res, 404, { code: 'NOT_FOUND', message: 'no', status: 404 });
      return;
    }
    send(res, 200, toPet(row));
    return;
  }
  send(res, 404, { code: 'NOT_FOUND', message: 'no', status: 404 });
}

createServer((req, res) => {
  if (contract && !contract.admit(req, res)) return;
  handle(req, res).catch(() => {
    send(res, 500, { code: 'INTERNAL_SERVER_ERROR', message: 'error', status: 500 });
  });
}).listen(port, '127.0.0.1');
