import createClient, { type Client } from 'openapi-fetch';
import { authHeaders } from './auth.js';
import { POSITION_HEADER, sharedPositions, type PositionTracker } from './positions.js';
import type { paths } from './generated/openapi.js';

export interface PetstoreRestClientOptions {
  /** The service's REST base address, ending in /v1: `http://127.0.0.1:3000/v1`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>`; leave it out when a proxy adds the header. */
  apiKey?: string;
  /** Further headers for every request. */
  headers?: Record<string, string>;
  /** The `fetch` to use (default: the global one). */
  fetch?: (request: Request) => Promise<Response>;
  /**
   * The highest `Petstore-Position` seen is sent with every request, so reads see this
   * writes of this client and of every other on the same default (docs/replicas.md):
   * `sharedPositions` unless given a tracker of its own, or `false` to send none.
   */
  positions?: PositionTracker | false;
}

/** `GET('/pets')`, `POST('/pets', { body })`, ...: typed from the committed openapi.json. */
export type PetstoreRestClient = Client<paths>;

/**
 * A REST client typed by the OpenAPI document. The base address comes from the caller's own
 * configuration, not from the document's `servers` (docs/openapi.md says why).
 */
export function createPetstoreRestClient(options: PetstoreRestClientOptions): PetstoreRestClient {
  const client = createClient<paths>({
    baseUrl: options.baseUrl,
    headers: { ...options.headers, ...authHeaders(options.apiKey) },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const positions = options.positions ?? sharedPositions;
  if (positions) {
    client.use({
      onRequest: ({ request }) => {
        if (positions.latest !== undefined) request.headers.set(POSITION_HEADER, positions.latest);
        return request;
      },
      onResponse: ({ response }) => {
        positions.observe(response.headers.get(POSITION_HEADER));
        return response;
      },
    });
  }
  return client;
}
