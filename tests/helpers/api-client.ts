import type { Conformance } from './conformance.js';

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

export interface RequestOptions {
  /** A value to send as JSON, or a string sent as is. */
  body?: unknown;
  headers?: Record<string, string>;
  /** The API key to send; `null` sends no Authorization header. */
  key?: string | null;
}

export type ApiClient = <T = unknown>(
  method: string,
  path: string,
  options?: RequestOptions,
) => Promise<ApiResponse<T>>;

/** fetch, plus the conformance check on every response; the tests' only way to call REST. */
export function createApiClient(
  origin: string,
  conformance: Conformance,
  defaultKey: string,
): ApiClient {
  const request = async (method: string, path: string, options: RequestOptions = {}) => {
    const key = options.key === undefined ? defaultKey : options.key;
    const headers: Record<string, string | undefined> = { ...options.headers };
    if (key !== null) headers.authorization ??= `Bearer ${key}`;
    let body: string | undefined;
    if (options.body !== undefined) {
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const url = `${origin}${path}`;
    const response = await fetch(url, { method, headers: headers as Record<string, string>, body });
    const text = await response.text();
    const parsed: unknown = text === '' ? undefined : JSON.parse(text);
    const result: ApiResponse = {
      status: response.status,
      headers: response.headers,
      body: parsed,
    };
    conformance.check(method, url, result);
    return result;
  };
  return request as ApiClient;
}
