import createClient, { type Client } from 'openapi-fetch';
import { authHeaders } from './auth.js';
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
}

/** `GET('/pets')`, `POST('/pets', { body })`, ...: typed from the committed openapi.json. */
export type PetstoreRestClient = Client<paths>;

/**
 * A REST client typed by the OpenAPI document. The base address comes from the caller's own
 * configuration, not from the document's `servers` (docs/openapi.md says why).
 */
export function createPetstoreRestClient(options: PetstoreRestClientOptions): PetstoreRestClient {
  return createClient<paths>({
    baseUrl: options.baseUrl,
    headers: { ...options.headers, ...authHeaders(options.apiKey) },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}
