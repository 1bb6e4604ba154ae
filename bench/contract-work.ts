import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import pino from 'pino';
import { Histogram, Registry } from 'prom-client';
import { z } from 'zod';

/**
 * The work the contract asks of any server on every request, added to the floor by
 * `npm run bench -- --contract-floor`: what the service cannot leave out, done as plainly as
 * it can be done. It answers what share of the gap to the bare floor is the contract's, not
 * the service's design: every request is authenticated by its key's SHA-256 compared in
 * constant time, carries a request id and trace ids, is counted in a duration histogram and
 * logged in one JSON line through pino; a page of pets has its query checked and its items
 * checked by zod, and links the next page with a signed cursor. The service also versions,
 * rate-limits, budgets database time and more; none of that is here, so this floor is a
 * lower bound of what the contract costs.
 */
export interface ContractWork {
  /** Starts a request: false (and a 401 sent) when its key is wrong. */
  admit(req: IncomingMessage, res: ServerResponse): boolean;
  /** The headers every answer carries, for the request `admit` started. */
  headers(res: ServerResponse): Record<string, string>;
  /** A page's query, checked: its size and status. */
  pageQuery(query: URLSearchParams): { limit: number; status?: string | undefined };
  /** The page's items checked, and its next link among `headers` when more exist. */
  page(items: PetItem[], more: boolean, limit: number, headers: Record<string, string>): PetItem[];
}

export interface PetItem {
  id: number;
  name: string;
  categoryId: number;
  status: string;
}

const STATUS = z.enum(['available', 'pending', 'sold']);
const PAGE_QUERY = z
  .object({
    limit: z.coerce.number().int().min(1).max(100).default(20),
    status: STATUS.optional(),
    id: z.string().optional(),
    name: z.string().optional(),
    cursor: z.string().optional(),
  })
  .strict();
const PAGE = z.array(
  z.object({
    id: z.number().int(),
    name: z.string(),
    categoryId: z.number().int(),
    status: STATUS,
  }),
);

export function contractWork(key: string, baseUrl: string): ContractWork {
  const keyDigest = createHash('sha256').update(key).digest();
  const cursorSecret = randomBytes(32);
  // Written as the service writes its lines: 4 KiB synchronous writes, flushed twice a second.
  const destination = pino.destination({ dest: 1, sync: true, minLength: 4096 });
  setInterval(() => {
    destination.flush();
  }, 500).unref();
  const logger = pino({ base: { service: 'floor', pid: process.pid } }, destination);
  const duration = new Histogram({
    name: 'http_server_request_duration_seconds',
    help: 'Request duration',
    labelNames: ['http_request_method', 'http_response_status_code'] as const,
    registers: [new Registry()],
  });
  const started = new WeakMap<ServerResponse, Record<string, string>>();

  return {
    admit(req, res) {
      const startedAt = performance.now();
      const traceId = randomBytes(16).toString('hex');
      const requestId = randomUUID();
      started.set(res, {
        'x-request-id': requestId,
        'x-content-type-options': 'nosniff',
        'cache-control': 'no-store',
      });
      res.on('close', () => {
        const seconds = (performance.now() - startedAt) / 1000;
        duration.observe(
          { http_request_method: req.method, http_response_status_code: res.statusCode },
          seconds,
        );
        logger.info({
          reqId: requestId,
          trace_id: traceId,
          span_id: traceId.slice(0, 16),
          method: req.method,
          status: res.statusCode,
          durationMs: Math.round(seconds * 10_000) / 10,
        });
      });
      const given = createHash('sha256')
        .update((req.headers.authorization ?? '').slice('Bearer '.length))
        .digest();
      if (timingSafeEqual(given, keyDigest)) return true;
      res.writeHead(401).end();
      return false;
    },
    headers: (res) => started.get(res) ?? {},
    pageQuery: (query) => PAGE_QUERY.parse(Object.fromEntries(query)),
    page(items, more, limit, headers) {
      const checked = PAGE.parse(items);
      const last = checked.at(-1);
      if (more && last) {
        const body = Buffer.from(JSON.stringify({ a: last.id, s: null })).toString('base64url');
        const signature = createHmac('sha256', cursorSecret).update(body).digest();
        const cursor = `${body}.${signature.subarray(0, 16).toString('base64url')}`;
        const query = new URLSearchParams({ limit: String(limit), cursor });
        headers.link = `<${baseUrl}/v1/pets?${query.toString()}>; rel="next"`;
      }
      return checked;
    },
  };
}
