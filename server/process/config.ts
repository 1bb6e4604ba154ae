import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { ConfigError } from '../support/errors.js';
import { DEFAULT_EMBEDDED_SETTINGS } from '../../db/embedded/settings.js';
import { parseRateLimit } from '../domain/rate-limit/policy.js';
import { DEFAULT_RETRY_DELAYS, parseRetryDelays } from '../webhooks/domain/schedule.js';
import { DEFAULT_TIMEOUT_SECONDS } from '../webhooks/domain/settings.js';

const baseUrl = z
  .url({ protocol: /^https?$/ })
  .refine((url) => new URL(url).pathname.replace(/\/$/, '').endsWith('/v1'), {
    message: 'must end in /v1',
  })
  .transform((url) => url.replace(/\/$/, ''));

const commaList = z
  .string()
  .default('')
  .transform((value) =>
    value
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item.length > 0),
  );

/** Exactly `scheme://host[:port]`, as browsers send it in `Origin`. */
const origins = commaList.pipe(
  z.array(
    z.url({ protocol: /^https?$/ }).refine((url) => new URL(url).origin === url, {
      message: 'each origin must be scheme://host[:port], without a path or trailing slash',
    }),
  ),
);

/** `<requests>/<window>` as parseRateLimit reads it, or `off`. */
const rateSetting = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((text, ctx) => {
      const setting = parseRateLimit(text);
      if (setting) return setting;
      ctx.issues.push({
        code: 'custom',
        input: text,
        message: 'expected <requests>/<window><s|m|h> such as 600/60s, or off',
      });
      return z.NEVER;
    });

const DURATION = /^(\d+)(s|m|h|d)$/;
const DURATION_SECONDS = { s: 1, m: 60, h: 3600, d: 86_400 } as const;

/** `30s`, `15m`, `24h` or `7d`, in seconds. */
const duration = z
  .string()
  .regex(DURATION, 'expected <number><s|m|h|d>, such as 7d')
  .transform((text) => {
    const [, amount = '0', unit = 's'] = DURATION.exec(text) ?? [];
    return Number(amount) * DURATION_SECONDS[unit as keyof typeof DURATION_SECONDS];
  })
  .pipe(z.number().int().min(60, 'expected at least a minute, such as 60s or 1m'));

/** A whole number in [min, max], with one message that says so whatever is wrong with it. */
const integer = (min: number, max: number) => {
  const expected = `expected a whole number from ${min} to ${max}`;
  return z.coerce.number({ error: expected }).int(expected).min(min, expected).max(max, expected);
};

const port = integer(0, 65535);

const MILLISECONDS = /^(\d+)(ms|s)$/;

/** `50ms` or `1s`, in milliseconds, at most a minute. */
const milliseconds = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .pipe(z.string().regex(MILLISECONDS, 'expected <number><ms|s>, such as 50ms or 1s'))
    .transform((text) => {
      const [, amount = '0', unit] = MILLISECONDS.exec(text) ?? [];
      return Number(amount) * (unit === 's' ? 1000 : 1);
    })
    .pipe(z.number().max(60_000, 'expected at most a minute'));

const flag = z.stringbool({ error: 'expected true or false (also 1/0, yes/no, on/off)' });

/** A size as PostgreSQL reads it in its settings: `16MB`, `512kB`, `1GB`. */
const postgresSize = z
  .string()
  .regex(/^\d+(kB|MB|GB)$/, 'expected a size such as 16MB, 512kB or 1GB');

const workers = z
  .union([z.literal('auto'), integer(1, 256)], {
    error: 'expected auto or a whole number from 1 to 256',
  })
  .default(1)
  .transform((value) => (value === 'auto' ? availableParallelism() : value));

const postgresUrl = z.url({
  protocol: /^postgres(ql)?$/,
  error: 'expected postgres://user:password@host/db',
});

/** `5s,5m,30m` as parseRetryDelays reads it, in seconds. */
const delays = (fallback: readonly number[]) =>
  z
    .string()
    .optional()
    .transform((text, ctx) => {
      if (text === undefined) return [...fallback];
      const parsed = parseRetryDelays(text);
      if (parsed) return parsed;
      ctx.issues.push({
        code: 'custom',
        input: text,
        message: 'expected delays such as 1s,2s,4s (ms, s, m or h)',
      });
      return z.NEVER;
    });

const configSchema = z.object({
  PORT: port.default(3000),
  HOST: z.string().trim().min(1, 'expected a host name or address').default('127.0.0.1'),
  DATABASE_URL: postgresUrl.optional(),
  /**
   * A direct connection to PostgreSQL when DATABASE_URL names a pooler in transaction mode: for
   * LISTEN and the migrations' lock, which need a session of their own.
   */
  DATABASE_DIRECT_URL: postgresUrl.optional(),
  DATABASE_POOL_MAX: integer(1, 1000).default(10),
  /** Hot standbys for reads (docs/replicas.md); unset, every read goes to DATABASE_URL. */
  DATABASE_REPLICA_URLS: commaList.pipe(z.array(postgresUrl)),
  /** How old a read without a Petstore-Position may be: a replica further behind is skipped. */
  REPLICA_MAX_LAG: milliseconds('1s'),
  /** How long a read with a Petstore-Position may wait for a replica to replay that far. */
  REPLICA_WAIT: milliseconds('50ms'),
  PGLITE_DIR: z.string().min(1).default('./.data/pglite'),
  /** PostgreSQL settings of the embedded database (db/embedded/settings.ts says why). */
  PGLITE_SHARED_BUFFERS: postgresSize.default(DEFAULT_EMBEDDED_SETTINGS.sharedBuffers),
  PGLITE_MAX_WAL_SIZE: postgresSize.default(DEFAULT_EMBEDDED_SETTINGS.maxWalSize),
  PGLITE_MIN_WAL_SIZE: postgresSize.default(DEFAULT_EMBEDDED_SETTINGS.minWalSize),
  /** Seconds between the embedded database's analyze/vacuum rounds (PGlite has no autovacuum). */
  PGLITE_MAINTENANCE_INTERVAL: duration.default(60),
  MIGRATE_ON_START: flag.default(true),
  API_KEYS: commaList,
  PUBLIC_BASE_URL: baseUrl.optional(),
  STAGING_BASE_URL: baseUrl.optional(),
  TRUST_PROXY: flag.default(false),
  RATE_LIMIT: rateSetting('600/60s'),
  /** Failed authentications per client address before keys never seen get no lookup. */
  AUTH_FAILURE_LIMIT: rateSetting('30/60s'),
  REDIS_URL: z
    .url({ protocol: /^rediss?$/, error: 'expected redis://host:port or rediss://host:port' })
    .optional(),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
      error: 'expected fatal, error, warn, info, debug, trace or silent',
    })
    .default('info'),
  /** Signs pagination cursors; unset, a built-in default is used (see the README). */
  CURSOR_SECRET: z.string().min(32, 'expected at least 32 characters').optional(),
  /** Seconds in-flight requests get to finish after SIGTERM/SIGINT before connections are cut. */
  SHUTDOWN_TIMEOUT: z.coerce
    .number({ error: 'expected seconds from 0 to 3600' })
    .min(0, 'expected seconds from 0 to 3600')
    .max(3600, 'expected seconds from 0 to 3600')
    .default(10),
  CORS_ORIGINS: origins,
  /** How long events are kept for streams to resume from (seconds once parsed). */
  EVENTS_RETENTION: duration.default(7 * 86_400),
  /** Event streams one API key may hold open, REST and tRPC together. */
  EVENT_STREAMS_PER_KEY: integer(1, 10_000).default(20),
  /** Seconds a stream may stay behind the live events after its queue overflowed. */
  EVENT_STREAM_MAX_LAG: integer(1, 3600).default(30),
  /** Seconds a stream ticket (POST /v1/events/tickets) stays valid before its stream opens. */
  EVENT_TICKET_TTL: integer(1, 3600).default(60),
  /** Calls one tRPC batch may hold; each counts against the key's rate limit. */
  TRPC_MAX_BATCH: integer(1, 1000).default(20),
  /** Allows webhook endpoints on private addresses and http:, for development and tests. */
  WEBHOOK_ALLOW_PRIVATE: flag.default(false),
  /** The waits before each retry of a failed webhook delivery, in seconds once parsed. */
  WEBHOOK_RETRY_DELAYS: delays(DEFAULT_RETRY_DELAYS),
  /** How long a webhook delivery may take before it has failed, in seconds once parsed. */
  WEBHOOK_TIMEOUT: delays([DEFAULT_TIMEOUT_SECONDS])
    .refine((list) => list.length === 1, 'expected one duration')
    .transform(([seconds]) => seconds ?? DEFAULT_TIMEOUT_SECONDS),
  WORKERS: workers,
  /** Serves GET /metrics (Prometheus) on a listener of its own; unset, metrics are not served. */
  METRICS_PORT: port.optional(),
  METRICS_HOST: z.string().trim().min(1, 'expected a host name or address').default('127.0.0.1'),
});

/** Values that may hold a credential are never repeated in a message. */
const SECRET = new Set([
  'API_KEYS',
  'CURSOR_SECRET',
  'DATABASE_URL',
  'DATABASE_DIRECT_URL',
  'DATABASE_REPLICA_URLS',
  'REDIS_URL',
]);

/** Every variable the service reads, in the order docs/operations.md lists them. */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(configSchema.shape);

export type Config = Omit<z.infer<typeof configSchema>, 'PUBLIC_BASE_URL'> & {
  PUBLIC_BASE_URL: string;
};

/**
 * The base URL of the address the service listens on, for the OpenAPI document when
 * PUBLIC_BASE_URL is unset. A wildcard address names no host to call: it becomes localhost.
 */
function listeningBaseUrl(host: string, port: number): string {
  const callable = host === '0.0.0.0' || host === '::' ? 'localhost' : host;
  return `http://${callable.includes(':') ? `[${callable}]` : callable}:${port}/v1`;
}

/** The one place that reads the environment; everything else receives a Config. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
  const parsed = configSchema.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const name = String(issue.path[0]);
      const value = SECRET.has(name) ? '' : `=${JSON.stringify(present[name] ?? '')}`;
      return `  ${name}${value}: ${issue.message}`;
    });
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const config = parsed.data;
  return {
    ...config,
    PUBLIC_BASE_URL: config.PUBLIC_BASE_URL ?? listeningBaseUrl(config.HOST, config.PORT),
  };
}
