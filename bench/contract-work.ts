import { createHmac, hash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import pino from 'pino';
import { Histogram, Registry } from 'prom-client';
import { z } from 'zod';
import { requestIdFrom } from '../server/surfaces/http/pipeline/request-id.js';
import { traceContextFrom } from '../server/surfaces/http/pipeline/trace-context.js';

/**
 * The work the contract asks of any server on every request, added to the floor by
 * `npm run bench -- --contract-floor`: part of what the service cannot leave out, written
 * plainly. It answers what share of the gap to the bare floor is the contract's, not
 * the service's design: every request is authenticated by its key's SHA-256 compared in
 * constant time, carries a request id and trace ids, is counted in a duration histogram and
 * logged in one JSON line through pino; a page of pets has its query checked and its items
 * checked by zod, and links the next page with a signed cursor. The ids are made by the
 * service's own functions. The service also versions, rate-limits, budgets database time and
 * more; none of that is here, so this floor does less of the contract's work than the service.
 */
export interface ContractWork {
  /** Starts a request: false (and a 401 sent) when its key is wrong. */
  admit(req: IncomingMessage, res: ServerResponse): boolean;
  /** The headers every answer carries, for the request `admit` started. */
  headers(res: ServerResponse): Record<string, string>;
  /** A page's query, checked; throws a ZodError for a bad one. */
  pageQuery(query: URLSearchParams): PageQuery;
  /** The page's items checked, and its next link among `headers` when more exist. */
  page(
    items: PetItem[],
    more: boolean,
    query: PageQuery,
    headers: Record<string, string>,
  ): PetItem[];
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
export type PageQuery = z.output<typeof PAGE_QUERY>;

const PAGE = z.array(
  z.object({
    id: z.number().int(),
    name: z.string(),
    categoryId: z.number().int(),
    status: STATUS,
  }),
);

/** Where a request's headers wait for its answer: on the response, as the service keeps them. */
const HEADERS = Symbol('contract headers');
type Answer = ServerResponse & { [HEADERS]?: Record<string, string> };

export function contractWork(key: string, baseUrl: string): ContractWork {
  const keyDigest = hash('sha256', key, 'buffer');
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

  return {
    admit(req, res: Answer) {
      const startedAt = performance.now();
      // The service's own request and trace ids, read from the request or made new.
      const { traceId, spanId } = traceContextFrom(req.headers.traceparent);
      const requestId = requestIdFrom(req.headers['x-request-id']);
      const headers = {
        'x-request-id': requestId,
        'x-content-type-options': 'nosniff',
        'cache-control': 'no-store',
      };
      res[HEADERS] = headers;
      res.on('close', () => {
        const seconds = (performance.now() - startedAt) / 1000;
        duration.observe(
          { http_request_method: req.method, http_response_status_code: res.statusCode },
          seconds,
        );
        logger.info({
          reqId: requestId,
          trace_id: traceId,
          span_id: spanId,
          method: req.method,
          status: res.statusCode,
          durationMs: Math.round(seconds * 10_000) / 10,
        });
      });
      const token = (req.headers.authorization ?? '').slice('Bearer '.length);
      if (timingSafeEqual(hash('sha256', token, 'buffer'), keyDigest)) return true;
      res.writeHead(401, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify({ code: 'UNAUTHORIZED', message: 'Unknown API key', status: 401 }));
      return false;
    },
    headers: (res: Answer) => res[HEADERS] ?? {},
    pageQuery: (query) => PAGE_QUERY.parse(Object.fromEntries(query)),
    page(items, more, query, headers) {
      const checked = PAGE.parse(items);
      const last = checked.at(-1);
      if (more && last) {
        const { limit, status, id, name } = query;
        const bound = JSON.stringify({ a: last.id, s: status ?? null });
        const body = Buffer.from(bound).toString('base64url');
        const signature = createHmac('sha256', cursorSecret).update(body).digest();
        const cursor = `${body}.${signature.subarray(0, 16).toString('base64url')}`;
        const next = new URLSearchParams({
          limit: String(limit),
          ...(status ? { status } : {}),
          ...(id ? { id } : {}),
          ...(name === undefined ? {} : { name }),
          cursor,
        });
        headers.link = `<${baseUrl}/v1/pets?${next.toString()}>; rel="next"`;
      }
      return checked;
    },
  };
}
