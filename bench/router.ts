/**
 * CPU time of the REST surface's routing alone: `createRestEndpoints(...).match` for a get, a
 * list and an order, as the pipeline calls it per request (the match it returns included).
 * `npx tsx bench/router.ts [lookups] [runs]`; prints the median over runs in ns per lookup.
 */
import type { RequestState } from '../server/surfaces/http/pipeline/request-state.js';
import { createRestEndpoints } from '../server/surfaces/http/rest/endpoints.js';
import { operations } from '../server/operations/registry.js';

const lookups = Number(process.argv[2] ?? 1e6);
const runs = Number(process.argv[3] ?? 7);
const paths = ['/v1/pets/123', '/v1/pets', '/v1/store/orders/5'];

const { match } = createRestEndpoints(operations);
// A fresh state per lookup, as a request has: the router may not keep anything between calls.
const stateOf = (path: string) =>
  ({ method: 'GET', path, headers: {}, origin: 'http://pets.test' }) as unknown as RequestState;

function run(): number {
  let found = 0;
  const started = process.cpuUsage();
  for (let i = 0; i < lookups; i++) {
    if (match(stateOf(paths[i % paths.length] ?? '/')).endpoint.operation !== 'unmatched') {
      found++;
    }
  }
  const { user, system } = process.cpuUsage(started);
  if (found !== lookups) throw new Error(`${lookups - found} lookups found no route`);
  return ((user + system) * 1000) / lookups;
}

run(); // warm-up: let the JIT settle before anything is timed
const figures = Array.from({ length: runs }, run).sort((a, b) => a - b);
const median = figures[Math.floor(runs / 2)] ?? NaN;
console.log(
  `${lookups} lookups x ${runs} runs: median ${median.toFixed(0)} ns/lookup ` +
    `(min ${figures[0]?.toFixed(0)}, max ${figures.at(-1)?.toFixed(0)})`,
);
