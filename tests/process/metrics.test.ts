import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { Readable } from 'node:stream';
import { getMetricsFromStream, type PromHistogramData, type PromMetrics } from 'prom2javascript';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { spawnServer, type ChildServer } from '../helpers/child-server.js';
import { freePort } from '../helpers/ports.js';
import {
  createPostgresDatabase,
  testDatabaseTarget,
  describeOnPostgres,
} from '../helpers/database.js';
import { rawRequest } from '../helpers/http.js';
import { openStream } from '../helpers/sse.js';
import { inCI } from '../helpers/ci.js';

const KEY = 'metrics-test-key-0123456789';
const LIMITED = 'metrics-limited-key-0123456789';
const auth = { authorization: `Bearer ${KEY}` };
const target = testDatabaseTarget();

/** Before its first sample the event-loop delay is NaN, which the parser cannot read. */
const NAN_SAMPLE = /^nodejs_eventloop_lag_\w+ Nan$/;

/** One scrape of the metrics listener, parsed by a Prometheus text-format parser. */
async function scrape(metricsOrigin: string): Promise<PromMetrics> {
  const response = await rawRequest(metricsOrigin, '/metrics');
  expect(response.status).toBe(200);
  expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  // prom-client writes NaN as `Nan` (Prometheus reads any case); prom2javascript reads none.
  const lines = response.body.split('\n').filter((line) => !NAN_SAMPLE.test(line));
  return getMetricsFromStream(Readable.from([lines.join('\n')]));
}

const PROMTOOL = '/usr/bin/promtool';
const PROMTOOL_HINT = 'bash scripts/ci-packages.sh installs it (Debian package prometheus)';

/** `promtool check metrics` on a scrape: its complaints, or undefined without promtool. */
function promtool(scrape: string): { status: number | null; output: string } | undefined {
  if (!existsSync(PROMTOOL)) return undefined;
  const run = spawnSync(PROMTOOL, ['check', 'metrics'], { input: scrape, encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

function durations(metrics: PromMetrics): PromHistogramData[] {
  const family = metrics.http_server_request_duration_seconds;
  expect(family?.type).toBe('histogram');
  return (family?.data ?? []) as PromHistogramData[];
}

function requestCount(metrics: PromMetrics, labels: Record<string, string>): number {
  return durations(metrics)
    .filter((entry) =>
      Object.entries(labels).every(([name, value]) => entry.labels[name] === value),
    )
    .reduce((sum, entry) => sum + entry.count, 0);
}

function value(metrics: PromMetrics, name: string, labels: Record<string, string> = {}): number {
  const data = (metrics[name]?.data ?? []) as { labels: Record<string, string>; value: number }[];
  const entry = data.find((item) =>
    Object.entries(labels).every(([label, wanted]) => item.labels[label] === wanted),
  );
  if (!entry) throw new Error(`no ${name} ${JSON.stringify(labels)} in the scrape`);
  return entry.value;
}

async function metricsOriginOf(server: ChildServer): Promise<string> {
  const line = await server.waitForLog((entry) => entry.msg === 'metrics', 10_000);
  return String(line.address).replace(/\/metrics$/, '');
}

describe('GET /metrics on METRICS_PORT', () => {
  let dataDir: string;
  let server: ChildServer;
  let metricsOrigin: string;
  let drop = () => Promise.resolve();

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'petstore-metrics-'));
    const env: Record<string, string> = {
      API_KEYS: `${KEY},${LIMITED}`,
      RATE_LIMIT: '20/60s',
      METRICS_PORT: String(await freePort()),
    };
    if (target.kind === 'postgres') {
      const created = await createPostgresDatabase(target);
      env.DATABASE_URL = created.url;
      drop = created.drop;
    } else env.PGLITE_DIR = dataDir;
    server = await spawnServer(env);
    metricsOrigin = await metricsOriginOf(server);
  }, 60_000);
  afterAll(async () => {
    await server.stop();
    await drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('passes promtool check metrics (Prometheus names, types and help)', async () => {
    const response = await rawRequest(metricsOrigin, '/metrics');
    const check = promtool(response.body);
    if (check === undefined) {
      if (inCI()) throw new Error(`promtool is missing: ${PROMTOOL_HINT}`);
      console.warn(`skipped promtool: ${PROMTOOL_HINT}`);
      return;
    }
    expect(check.output).toBe('');
    expect(check.status).toBe(0);
  });

  it('is not served on the public port', async () => {
    const response = await rawRequest(server.origin, '/metrics', { headers: auth });
    expect(response.status).toBe(404);
  });

  it('counts requests by method, operation and status, never by raw path', async () => {
    const unmatched = { http_request_method: 'GET', operation: 'unmatched' };
    const unmatchedBefore = requestCount(await scrape(metricsOrigin), unmatched);
    expect((await rawRequest(server.origin, '/v1/pets', { headers: auth })).status).toBe(200);
    const missing = await rawRequest(server.origin, '/v1/pets/987654', { headers: auth });
    expect(missing.status).toBe(404);
    const trpc = await rawRequest(server.origin, '/trpc/pets.list?input=%7B%7D', {
      headers: auth,
    });
    expect(trpc.status).toBe(200);
    const unknown = await rawRequest(server.origin, '/trpc/no.such.987654', { headers: auth });
    expect(unknown.status).toBe(404);

    const metrics = await scrape(metricsOrigin);
    const get = { http_request_method: 'GET' };
    expect(
      requestCount(metrics, { ...get, operation: 'listPets', http_response_status_code: '200' }),
    ).toBe(1);
    expect(
      requestCount(metrics, { ...get, operation: 'getPet', http_response_status_code: '404' }),
    ).toBe(1);
    expect(requestCount(metrics, { ...get, operation: 'pets.list' })).toBe(1);
    expect(requestCount(metrics, unmatched) - unmatchedBefore).toBe(1);
    // OpenTelemetry's http_route beside it: the template, one for each operation.
    const routes = new Map(
      durations(metrics).map((entry) => [entry.labels.operation, entry.labels.http_route]),
    );
    expect(routes.get('listPets')).toBe('/v1/pets');
    expect(routes.get('getPet')).toBe('/v1/pets/{petId}');
    expect(routes.get('pets.list')).toBe('/trpc/pets.list');
    expect(routes.get('unmatched')).toBe('');
    const labelValues = durations(metrics).flatMap((entry) => Object.values(entry.labels));
    expect(labelValues.filter((label) => label.includes('987654'))).toEqual([]);
  });

  it('counts authentication and rate-limit refusals', async () => {
    expect((await rawRequest(server.origin, '/v1/pets')).status).toBe(401);
    const wrong = { authorization: 'Bearer not-a-key-of-this-service' };
    expect((await rawRequest(server.origin, '/v1/pets', { headers: wrong })).status).toBe(401);
    const limited = { authorization: `Bearer ${LIMITED}` };
    const statuses = [];
    for (let i = 0; i < 21; i++) {
      statuses.push((await rawRequest(server.origin, '/v1/pets', { headers: limited })).status);
    }
    expect(statuses.at(-1)).toBe(429);

    const metrics = await scrape(metricsOrigin);
    expect(value(metrics, 'petstore_authentication_refusals_total', { reason: 'missing' })).toBe(1);
    expect(value(metrics, 'petstore_authentication_refusals_total', { reason: 'invalid' })).toBe(1);
    expect(value(metrics, 'petstore_rate_limit_refusals_total')).toBe(1);
  });

  it('follows event streams: open, events delivered', async () => {
    const stream = await openStream(server.origin, '/v1/events', { headers: auth });
    expect(stream.status).toBe(200);
    expect(value(await scrape(metricsOrigin), 'petstore_event_streams_open')).toBe(1);
    const created = await rawRequest(server.origin, '/v1/pets', {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Counted', categoryId: 1 }),
    });
    expect(created.status).toBe(201);
    await stream.waitForFrames(1);
    stream.close();
    await vi.waitFor(async () => {
      expect(value(await scrape(metricsOrigin), 'petstore_event_streams_open')).toBe(0);
    });
    const metrics = await scrape(metricsOrigin);
    expect(value(metrics, 'petstore_events_delivered_total')).toBe(1);
    expect(value(metrics, 'petstore_event_streams_cut_off_total')).toBe(0);
  });

  it('shows the database pool and the process and GC defaults', async () => {
    const metrics = await scrape(metricsOrigin);
    expect(value(metrics, 'petstore_database_pool_size')).toBe(target.kind === 'pglite' ? 1 : 10);
    expect(value(metrics, 'petstore_database_pool_in_use')).toBe(0);
    expect(value(metrics, 'petstore_database_pool_waiting')).toBe(0);
    expect(metrics.process_cpu_user_seconds_total?.type).toBe('counter');
    expect(metrics.nodejs_heap_size_used_bytes?.type).toBe('gauge');
    expect(metrics.nodejs_gc_duration_seconds?.type).toBe('histogram');
  });
});

// Several processes need a shared server; the embedded database serves one process only.
describeOnPostgres('GET /metrics with WORKERS=2 (PostgreSQL)', () => {
  let server: ChildServer;
  let metricsOrigin: string;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    if (target.kind !== 'postgres') return;
    const created = await createPostgresDatabase(target);
    drop = created.drop;
    server = await spawnServer(
      {
        DATABASE_URL: created.url,
        API_KEYS: KEY,
        WORKERS: '2',
        RATE_LIMIT: 'off',
        METRICS_PORT: String(await freePort()),
      },
      { listeners: 2 },
    );
    metricsOrigin = await metricsOriginOf(server);
  }, 60_000);
  afterAll(async () => {
    await server.stop();
    await drop();
  });

  it('one scrape of the primary sums every worker', async () => {
    const ids = Array.from({ length: 40 }, (_, i) => `metrics-spread-${i}`);
    const responses = await Promise.all(
      ids.map((id) =>
        rawRequest(server.origin, '/v1/pets', { headers: { ...auth, 'x-request-id': id } }),
      ),
    );
    expect(responses.every((response) => response.status === 200)).toBe(true);
    const wanted = new Set(ids);
    await server.waitForLog(
      () => server.logs.filter((line) => wanted.has(line.reqId as string)).length === ids.length,
      5_000,
    );
    const pids = new Set(
      server.logs.filter((line) => wanted.has(line.reqId as string)).map((line) => line.pid),
    );
    expect(pids.size).toBe(2);

    const metrics = await scrape(metricsOrigin);
    expect(requestCount(metrics, { operation: 'listPets' })).toBe(40);
    expect(value(metrics, 'petstore_database_pool_size')).toBe(20);
  });
});
