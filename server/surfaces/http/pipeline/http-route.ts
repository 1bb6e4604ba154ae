import type { RequestState } from './request-state.js';

/**
 * OpenTelemetry's `http.route`: the template of the route the request matched, as dashboards
 * built on its HTTP conventions group by it; empty (no label) when no route matched. A function
 * of the operation, so it adds no series: REST operations by their path under /v1
 * (`/v1/pets/{petId}`), tRPC procedures by theirs (`/trpc/pets.get`, a batch
 * `/trpc/{procedures}`), public routes by their own path.
 */
export function httpRoute({ operation, route, surface }: RequestState): string {
  if (operation === undefined || operation === 'unmatched' || !route?.startsWith('/')) return '';
  if (surface === 'trpc')
    return operation === 'batch' ? '/trpc/{procedures}' : `/trpc/${operation}`;
  // A public route is named by its path, which is also its operation's name.
  return operation === route ? route : `/v1${route}`;
}
