import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer();

describe('authentication comes first', () => {
  it.each([
    ['malformed JSON', { body: '{"name":', key: null }],
    [
      'a wrong content type',
      { body: 'name=Rex', headers: { 'content-type': 'text/plain' }, key: null },
    ],
  ])('answers %s without a key with 401', async (_, options) => {
    const response = await server.api('POST', '/v1/pets', options);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="petstore"');
  });

  it('answers unknown paths without a key with 401', async () => {
    const response = await server.api('GET', '/v1/nothing-here', { key: null });
    expect(response.status).toBe(401);
  });

  it.each([
    ['an unknown key', 'Bearer not-a-key'],
    ['an empty bearer', 'Bearer '],
  ])('answers %s with 401 and error="invalid_token"', async (_, authorization) => {
    const response = await server.api('GET', '/v1/pets', { key: null, headers: { authorization } });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(
      'Bearer realm="petstore", error="invalid_token"',
    );
  });

  it('answers another scheme as no credentials: 401 without an error code (RFC 6750 §3)', async () => {
    const authorization = `Basic ${Buffer.from('a:b').toString('base64')}`;
    const response = await server.api('GET', '/v1/pets', { key: null, headers: { authorization } });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="petstore"');
  });

  it('accepts the scheme name in any case', async () => {
    const response = await server.api('GET', '/v1/pets', {
      key: null,
      headers: { authorization: 'bEaReR test-key-write' },
    });
    expect(response.status).toBe(200);
  });
});

describe('routing', () => {
  it('answers an unknown path with 404', async () => {
    expect((await server.api('GET', '/v1/nothing-here')).status).toBe(404);
  });

  it('answers DELETE /v1/pets with 405 and Allow: GET, POST', async () => {
    const response = await server.api('DELETE', '/v1/pets');
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, POST');
  });

  it('answers PUT /v1/pets/1 with 405 and Allow: GET, PATCH, DELETE', async () => {
    const response = await server.api('PUT', '/v1/pets/1', { body: {} });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, PATCH, DELETE');
  });
});

describe('request bodies', () => {
  it('answers a non-JSON content type with 415', async () => {
    const response = await server.api('POST', '/v1/pets', {
      body: 'name=Rex',
      headers: { 'content-type': 'text/plain' },
    });
    expect(response.status).toBe(415);
  });

  it('answers a missing content type with 415', async () => {
    const url = `${server.baseUrl}/pets`;
    // fetch labels a string body text/plain; bytes go out with no content type at all.
    const response = await fetch(url, {
      method: 'POST',
      headers: { authorization: 'Bearer test-key-write' },
      body: new Uint8Array(Buffer.from('{}')),
    });
    const body: unknown = await response.json();
    server.conformance.check('POST', url, {
      status: response.status,
      headers: response.headers,
      body,
    });
    expect(response.status).toBe(415);
  });

  it('answers a 70 KiB body with 413', async () => {
    const response = await server.api('POST', '/v1/pets', {
      body: { name: 'x'.repeat(70 * 1024), categoryId: 1 },
    });
    expect(response.status).toBe(413);
  });

  it.each([
    ['malformed JSON', '{"name":'],
    ['an empty body', ''],
    ['invalid UTF-8', Buffer.from([0x7b, 0xff, 0x7d]).toString('latin1')],
  ])('answers %s with 400', async (_, body) => {
    const response = await server.api('POST', '/v1/pets', { body: body === '' ? ' ' : body });
    expect(response.status).toBe(400);
  });

  it('answers "categoryId": "3" with 400 naming categoryId', async () => {
    const response = await server.api<{ issues: { path: string }[] }>('POST', '/v1/pets', {
      body: { name: 'Rex', categoryId: '3' },
    });
    expect(response.status).toBe(400);
    expect(response.body.issues).toEqual([
      { path: 'categoryId', message: expect.any(String) as string },
    ]);
  });

  it('answers an unknown field with 400 naming it', async () => {
    const response = await server.api<{ issues: { path: string; message: string }[] }>(
      'POST',
      '/v1/pets',
      {
        body: { name: 'Rex', categoryId: 3, colour: 'brown' },
      },
    );
    expect(response.status).toBe(400);
    expect(response.body.issues).toEqual([{ path: 'colour', message: 'Unknown field "colour"' }]);
  });

  it('answers a JSON array with 400', async () => {
    expect((await server.api('POST', '/v1/pets', { body: [] })).status).toBe(400);
  });

  it('names every query parameter sent to create, which takes none', async () => {
    const response = await server.api<{ issues: { path: string }[] }>(
      'POST',
      '/v1/pets?dryRun=true&x=1',
      {
        body: { name: 'Rex', categoryId: 3 },
      },
    );
    expect(response.status).toBe(400);
    expect(response.body.issues.map((issue) => issue.path)).toEqual(['dryRun', 'x']);
  });

  it('reports an id past 2^53 once', async () => {
    const response = await server.api<{ issues: unknown[] }>('POST', '/v1/pets', {
      body: { name: 'Rex', categoryId: 2 ** 53 },
    });
    expect(response.status).toBe(400);
    expect(response.body.issues).toHaveLength(1);
  });

  it('answers a query parameter on create with 400', async () => {
    const response = await server.api('POST', '/v1/pets?dryRun=true', {
      body: { name: 'Rex', categoryId: 3 },
    });
    expect(response.status).toBe(400);
  });
});

describe('request ids', () => {
  it('echoes a sane X-Request-Id and replaces an unsafe one', async () => {
    const sane = await server.api('GET', '/v1/pets', { headers: { 'x-request-id': 'abc-123' } });
    expect(sane.headers.get('x-request-id')).toBe('abc-123');
    const unsafe = await server.api('GET', '/v1/pets', { headers: { 'x-request-id': 'a b\tc' } });
    expect(unsafe.headers.get('x-request-id')).not.toBe('a b\tc');
    expect(server.logs.some((line) => line.reqId === 'abc-123')).toBe(true);
  });
});
