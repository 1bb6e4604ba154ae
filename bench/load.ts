import autocannon from 'autocannon';

/**
 * One load run, in its own process so the orchestrator can pin it to the other core.
 * argv: JSON of { url, path, method, body?, connections, duration, key, randomIdUpTo? }
 */
interface LoadSpec {
  url: string;
  path: string;
  method: 'GET' | 'POST';
  body?: string;
  connections: number;
  duration: number;
  key: string;
  randomIdUpTo?: number;
}

const spec = JSON.parse(process.argv[2] ?? '{}') as LoadSpec;
const headers = { authorization: `Bearer ${spec.key}`, 'content-type': 'application/json' };

const result = await autocannon({
  url: spec.url,
  connections: spec.connections,
  duration: spec.duration,
  requests: [
    {
      method: spec.method,
      path: spec.path,
      headers,
      ...(spec.body ? { body: spec.body } : {}),
      ...(spec.randomIdUpTo
        ? {
            setupRequest: (request: autocannon.Request) => ({
              ...request,
              path: spec.path.replace(
                '{id}',
                String(1 + Math.floor(Math.random() * (spec.randomIdUpTo ?? 1))),
              ),
            }),
          }
        : {}),
    },
  ],
});

process.stdout.write(
  JSON.stringify({
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  }),
);
