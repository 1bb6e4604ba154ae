import autocannon from 'autocannon';
import type { RequestSpec } from './scenarios.js';

/**
 * One load run, in its own process so the orchestrator can pin it to the other core.
 * argv: JSON of { url, requests, connections, duration, key, petsUpTo (the store's size) }: each
 * connection cycles through `requests` in order (bench/scenarios.ts says what `{id}`, `{pet}`
 * and `{order}` are).
 */
interface LoadSpec {
  url: string;
  requests: RequestSpec[];
  connections: number;
  duration: number;
  key: string;
  petsUpTo: number;
  overallRate?: number;
}

interface ConnectionState {
  pet?: number;
  order?: string;
}

const spec = JSON.parse(process.argv[2] ?? '{}') as LoadSpec;
const headers = { authorization: `Bearer ${spec.key}`, 'content-type': 'application/json' };

/**
 * The seed makes every third pet available (bench/seed.ts), and the orchestrator makes them so
 * again before each run: each connection takes the next one, so no two share a pet.
 */
const available = Math.floor(spec.petsUpTo / 3);
let nextPet = Math.floor(Math.random() * available);
const availablePet = () => 3 * (1 + (nextPet++ % available));

function fill(text: string, state: ConnectionState): string {
  return text
    .replace('{id}', () => String(1 + Math.floor(Math.random() * spec.petsUpTo)))
    .replace('{pet}', () => String((state.pet ??= availablePet())))
    .replace('{order}', () => state.order ?? '0');
}

function toRequest({ method, path, body, headers: own }: RequestSpec): autocannon.Request {
  return {
    method,
    path,
    headers: own ? { ...headers, ...own } : headers,
    ...(body ? { body } : {}),
    setupRequest: (request: autocannon.Request, context: ConnectionState) => ({
      ...request,
      path: fill(path, context),
      ...(body ? { body: fill(body, context) } : {}),
    }),
    onResponse: (_status: number, answer: string, context: ConnectionState) => {
      const id = /"id":(\d+)/.exec(answer)?.[1];
      if (id) context.order = id;
    },
  };
}

const result = await autocannon({
  url: spec.url,
  connections: spec.connections,
  duration: spec.duration,
  ...(spec.overallRate ? { overallRate: spec.overallRate } : {}),
  requests: spec.requests.map(toRequest),
});

process.stdout.write(
  JSON.stringify({
    rps: result.requests.average,
    requests: result.requests.total,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    loadedFrom: result.start.getTime(),
    loadedUntil: result.finish.getTime(),
  }),
);
