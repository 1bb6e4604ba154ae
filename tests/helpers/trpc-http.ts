/** One raw tRPC call over HTTP, so tests see the status and headers a tRPC client would get. */
export async function callTrpc(
  origin: string,
  key: string,
  procedure: string,
  input: unknown,
  kind: 'query' | 'mutation',
): Promise<{ status: number; headers: Headers; body: unknown }> {
  const authorization = `Bearer ${key}`;
  const url = new URL(`/trpc/${procedure}`, origin);
  if (kind === 'query') url.searchParams.set('input', JSON.stringify(input));
  const response = await fetch(url, {
    method: kind === 'query' ? 'GET' : 'POST',
    headers:
      kind === 'query' ? { authorization } : { authorization, 'content-type': 'application/json' },
    body: kind === 'query' ? undefined : JSON.stringify(input),
  });
  return { status: response.status, headers: response.headers, body: await response.json() };
}
