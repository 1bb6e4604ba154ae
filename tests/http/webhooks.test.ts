import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer({
  // Nothing listens at these URLs: the deliveries stay pending for the lists below.
  webhooks: { allowPrivate: true, retryDelays: [3600], pollMs: 50 },
});

interface Hook {
  id: string;
  secret?: string;
  enabled: boolean;
}

const create = async (url = 'http://127.0.0.1:9/hook') =>
  server.api<Hook>('POST', '/v1/webhooks', { body: { url, description: 'books' } });

describe('/v1/webhooks', () => {
  it('creates (201, the secret once), reads, changes and deletes (204) an endpoint', async () => {
    const created = await create();
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32,}$/);
    const path = `/v1/webhooks/${created.body.id}`;
    expect(created.headers.get('location')).toBe(`${server.origin}${path}`);
    const read = await server.api<Hook>('GET', path);
    expect(read.status).toBe(200);
    expect(read.body).not.toHaveProperty('secret');
    expect((await server.api('PATCH', path, { body: {} })).status).toBe(400);
    const patched = await server.api<Hook>('PATCH', path, { body: { enabled: false } });
    expect(patched.body.enabled).toBe(false);
    expect((await server.api('DELETE', path)).status).toBe(204);
    expect((await server.api('GET', path)).status).toBe(404);
  });

  it('registers one endpoint for a retried create with an Idempotency-Key', async () => {
    const body = { url: 'http://127.0.0.1:9/retried', types: ['pet.created'] };
    const headers = { 'idempotency-key': 'webhook-create-1' };
    const first = await server.api<Hook>('POST', '/v1/webhooks', { body, headers });
    const retry = await server.api<Hook>('POST', '/v1/webhooks', { body, headers });
    expect([first.status, retry.status]).toEqual([201, 201]);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.headers.get('location')).toBe(first.headers.get('location'));
    const listed = await server.api<{ url: string }[]>('GET', '/v1/webhooks?limit=100');
    expect(listed.body.filter((hook) => hook.url === body.url)).toHaveLength(1);
    // The secret is the endpoint's own, read again: after a rotation, the new one.
    const rotated = await server.api<Hook>('POST', `/v1/webhooks/${first.body.id}/secret`);
    const later = await server.api<Hook>('POST', '/v1/webhooks', { body, headers });
    expect(later.body.secret).toBe(rotated.body.secret);
    const other = await server.api<{ code: string }>('POST', '/v1/webhooks', {
      body: { ...body, types: ['pet.deleted'] },
      headers,
    });
    expect(other.status).toBe(422);
  });

  it('pages the list with a next link', async () => {
    await create();
    await create();
    const first = await server.api<Hook[]>('GET', '/v1/webhooks?limit=1');
    expect(first.body).toHaveLength(1);
    expect(first.headers.get('link')).toMatch(/rel="next"/);
  });

  it('rotates the secret without a request body', async () => {
    const created = await create();
    const rotated = await server.api<Hook>('POST', `/v1/webhooks/${created.body.id}/secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(created.body.secret);
  });

  it('lists deliveries by status, retries one and replays (202)', async () => {
    const created = await create();
    const base = `/v1/webhooks/${created.body.id}`;
    await server.api('POST', '/v1/pets', { body: { name: 'Rex', categoryId: 1 } });
    let pending: { id: string; status: string }[] = [];
    for (let i = 0; i < 100 && pending.length === 0; i++) {
      pending = (await server.api<typeof pending>('GET', `${base}/deliveries?status=pending`)).body;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(pending.map((d) => d.status)).toEqual(['pending']);
    const failed = await server.api<unknown[]>('GET', `${base}/deliveries?status=failed`);
    expect(failed.body).toEqual([]);
    expect((await server.api('GET', `${base}/deliveries?status=lost`)).status).toBe(400);
    const retried = await server.api('POST', `${base}/deliveries/${pending[0]?.id}/retry`);
    expect(retried).toMatchObject({ status: 202, body: { scheduled: 1 } });
    expect((await server.api('POST', `${base}/deliveries/999999/retry`)).status).toBe(404);
    const replayed = await server.api('POST', `${base}/replay`, { body: { after: '0' } });
    expect(replayed).toMatchObject({ status: 202, body: { scheduled: 1 } });
    expect((await server.api('GET', '/v1/webhooks/wh_none/deliveries')).status).toBe(404);
  });

  it('refuses a private address when they are not allowed, and http:', async () => {
    // This server allows them; the refusals themselves are in tests/router/webhooks.test.ts.
    const refused = await server.api('POST', '/v1/webhooks', { body: { url: 'ftp://x.test/' } });
    expect(refused.status).toBe(400);
  });
});
