import type { Conformance } from './conformance.js';

/** A fetch for real clients: every REST response they receive is checked against the document. */
export function checkedFetch(conformance: Conformance) {
  return async (input: Request): Promise<Response> => {
    const response = await fetch(input);
    const text = await response.clone().text();
    conformance.check(input.method, input.url, {
      status: response.status,
      headers: response.headers,
      body: text === '' ? undefined : (JSON.parse(text) as unknown),
    });
    return response;
  };
}
