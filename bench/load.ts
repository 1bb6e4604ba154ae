import autocannon from 'autocannon';

/**
 * One load run, in its own process so the orchestrator can pin it to the other core.
 * argv: JSON of { url, requests: [{ path, method, body?, randomIdUpTo? }], connections, duration, key }
 * Each connection cycles through `requests` in order.
 */
interface RequestSpec {
  path: string;
  method: 'GET' | 'POST';
  body?: string;
  randomIdUpTo?: number;
}

interface LoadSpec {
  url: string;
  requests: RequestSpec[];
  connections: number;
  duration: number;
  key: string;
}

const spec = JSON.parse(process.argv[2] ?? '{}') as LoadSpec;
const headers = { authorization: `Bearer ${spec.key}`, 'content-type': 'application/json' };

function toRequest({ method, path, body, randomIdUpTo }: RequestSpec): autocannon.Request {
  return {
    method,
    path,
    headers,
    ...(body ? { body } : {}),
    ...(randomIdUpTo
      ? {
          setupRequest: (request: autocannon.Request) => ({
            ...request,
            path: path.replace('{id}', String(1 + Math.floor(Math.random() * randomIdUpTo))),
          }),
        }
      : {}),
  };
}

const result = await autocannon({
  url: spec.url,
  connections: spec.connections,
  duration: spec.duration,
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
  }),
);
