import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import postgres from 'postgres';

/**
 * The floor: what a bare node:http + postgres server costs for the same SQL, with prepared
 * statements (postgres.js names and caches them by default). It checks the bearer key and the
 * inputs only as far as the queries need; the service must do all the contract asks on top.
 */
const sql = postgres(process.argv[2] ?? '', { max: 10 });
const key = `Bearer ${process.argv[3] ?? ''}`;
const port = Number(process.argv[4] ?? 0);
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
    ...headers,
  });
  res.end(payload);
}

async function readJson(
  req: IncomingMessage,
): Promise<{ name: string; categoryId: number; status?: string }> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
    name: string;
    categoryId: number;
    status?: string;
  };
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.headers.authorization !== key) {
    send(res, 401, { code: 'UNAUTHORIZED', message: 'no', status: 401 });
    return;
  }
  const url = new URL(req.url ?? '/', 'http://floor');
  if (url.pathname === '/v1/pets' && req.method === 'GET') {
    const limit = Number(url.searchParams.get('limit') ?? 20);
    const status = url.searchParams.get('status');
    const rows =
      status && STATUSES.has(status)
        ? await sql`select id, name, category_id as "categoryId", status from pets where status = ${status} and id > ${0} order by id limit ${limit}`
        : await sql`select id, name, category_id as "categoryId", status from pets where id > ${0} order by id limit ${limit}`;
    send(
      res,
      200,
      rows.map((row) => ({ ...row, id: Number(row.id), categoryId: Number(row.categoryId) })),
    );
    return;
  }
  if (url.pathname === '/v1/pets' && req.method === 'POST') {
    const pet = await readJson(req);
    const [row] =
      await sql`insert into pets (name, category_id, status) values (${pet.name}, ${pet.categoryId}, ${pet.status ?? 'available'}) returning id, name, category_id as "categoryId", status`;
    const created = { ...row, id: Number(row?.id), categoryId: Number(row?.categoryId) };
    send(res, 201, created, { location: `http://floor/v1/pets/${created.id}` });
    return;
  }
  const match = /^\/v1\/pets\/(\d+)$/.exec(url.pathname);
  if (match && req.method === 'GET') {
    const [row] =
      await sql`select id, name, category_id as "categoryId", status from pets where id = ${Number(match[1])}`;
    if (!row) {
      send(res, 404, { code: 'NOT_FOUND', message: 'no', status: 404 });
      return;
    }
    send(res, 200, { ...row, id: Number(row.id), categoryId: Number(row.categoryId) });
    return;
  }
  send(res, 404, { code: 'NOT_FOUND', message: 'no', status: 404 });
}

createServer((req, res) => {
  handle(req, res).catch(() => {
    send(res, 500, { code: 'INTERNAL_SERVER_ERROR', message: 'error', status: 500 });
  });
}).listen(port, '127.0.0.1');
