import { createHash } from 'node:crypto';
import { createTRPCClient, httpBatchLink } from '@trpc/client';
import { eq, sql } from 'drizzle-orm';
import { describe, expect, it, vi } from 'vitest';
import { executeRows } from '../../db/database.js';
import { revokeApiKey } from '../../db/queries/api-keys.js';
import { deleteExpiredStreamTickets } from '../../db/queries/stream-tickets.js';
import { streamTickets } from '../../db/schema.js';
import { issueApiKey } from '../../server/domain/auth/issue-api-key.js';
import type { AppRouter } from '../../server/surfaces/trpc/router.js';
import { followEvents, refusedStream } from '../helpers/events.js';
import { newPet } from '../helpers/factories.js';
import { checkedFetch } from '../helpers/http.js';
import { TEST_KEY, useTestServer, type TestServer } from '../helpers/server.js';

const server = useTestServer();
/** Tickets that expire after a second, and one stream per key, on a server of their own. */
const brief = useTestServer({ eventTicketTtlSeconds: 1, eventStreamsPerKey: 1 });

interface Ticket {
  ticket: string;
  expiresAt: string;
}

async function ticketFor(on: TestServer, key: string = TEST_KEY): Promise<string> {
  const response = await on.api<Ticket>('POST', '/v1/events/tickets', { key });
  expect(response.status).toBe(201);
  return response.body.ticket;
}

const withTicket = (ticket: string, rest = '') => `?ticket=${encodeURIComponent(ticket)}${rest}`;

describe('POST /v1/events/tickets', () => {
  it('answers 201 with a ticket that expires in 60 s, and stores only its hash', async () => {
    const response = await server.api<Ticket>('POST', '/v1/events/tickets');
    expect(response.status).toBe(201);
    const { ticket, expiresAt } = response.body;
    expect(ticket).toMatch(/^pst_[A-Za-z0-9_-]{43}$/);
    const lifetime = Date.parse(expiresAt) - Date.now();
    expect(lifetime).toBeGreaterThan(50_000);
    expect(lifetime).toBeLessThanOrEqual(61_000);
    const hash = createHash('sha256').update(ticket).digest('hex');
    const { db } = server.database.handle;
    const rows = await db.select().from(streamTickets).where(eq(streamTickets.hash, hash));
    expect(rows).toEqual([expect.objectContaining({ keyId: 'env-1' })]);
    const dump = await executeRows(
      db,
      sql`select row_to_json(t)::text as row from stream_tickets t`,
    );
    expect(JSON.stringify(dump)).not.toContain(ticket);
  });

  it('needs the key (401 without it) and refuses a body or a query parameter (400)', async () => {
    expect((await server.api('POST', '/v1/events/tickets', { key: null })).status).toBe(401);
    const body = await server.api('POST', '/v1/events/tickets', { body: {} });
    expect(body.status).toBe(400);
    expect((await server.api('POST', '/v1/events/tickets?types=pet.created')).status).toBe(400);
  });

  it('issues the same answer over tRPC, with a real client calling events.ticket.mutate()', async () => {
    const raw = await server.trpc<{ result: { data: Ticket } }>(
      'events.ticket',
      undefined,
      'mutation',
    );
    expect(raw.status).toBe(200);
    expect(Object.keys(raw.body.result.data).sort()).toEqual(['expiresAt', 'ticket']);
    const client = createTRPCClient<AppRouter>({
      links: [
        httpBatchLink({
          url: `${server.origin}/trpc`,
          headers: { authorization: `Bearer ${TEST_KEY}` },
          fetch: checkedFetch(server.conformance),
        }),
      ],
    });
    const { ticket } = await client.events.ticket.mutate();
    const stream = await followEvents(server, TEST_KEY, withTicket(ticket), { key: null });
    stream.close();
  });
});

describe('GET /v1/events?ticket=', () => {
  it('opens the stream as the ticket’s key, and neither the ticket nor the URL is logged', async () => {
    const ticket = await ticketFor(server);
    const follower = await followEvents(
      server,
      TEST_KEY,
      withTicket(ticket, '&types=pet.created'),
      {
        key: null,
      },
    );
    const created = await server.api<{ id: number }>('POST', '/v1/pets', { body: newPet() });
    const [event] = await follower.until('pet.created', created.body.id);
    expect(event?.type).toBe('pet.created');
    follower.close();
    await follower.stream.ended;
    await vi.waitFor(() => {
      expect(server.logs.some((line) => line.route === '/events' && line.keyId === 'env-1')).toBe(
        true,
      );
    });
    expect(JSON.stringify(server.logs)).not.toContain(ticket);
  });

  it('refuses a ticket the second time: 401 invalid_token', async () => {
    const ticket = await ticketFor(server);
    const first = await followEvents(server, TEST_KEY, withTicket(ticket), { key: null });
    first.close();
    const again = await refusedStream(server, null, withTicket(ticket));
    expect(again.status).toBe(401);
    expect(again.headers.get('www-authenticate')).toBe(
      'Bearer realm="petstore", error="invalid_token"',
    );
    expect(again.body.message).not.toContain(ticket);
  });

  it('refuses an unknown or malformed ticket: 401', async () => {
    for (const ticket of [`pst_${'A'.repeat(43)}`, 'nonsense', '']) {
      expect((await refusedStream(server, null, withTicket(ticket))).status).toBe(401);
    }
  });

  it('refuses a ticket sent with an Authorization header, or twice: 401 invalid_request, and the ticket still works', async () => {
    const ticket = await ticketFor(server);
    const both = await refusedStream(server, TEST_KEY, withTicket(ticket));
    expect(both.status).toBe(401);
    expect(both.headers.get('www-authenticate')).toBe(
      'Bearer realm="petstore", error="invalid_request"',
    );
    const twice = await refusedStream(server, null, withTicket(ticket, `&ticket=${ticket}`));
    expect(twice.status).toBe(401);
    const follower = await followEvents(server, TEST_KEY, withTicket(ticket), { key: null });
    follower.close();
  });

  it('opens for a read-only key, whose ticket it is', async () => {
    const { db } = server.database.handle;
    const reader = await issueApiKey(db, { name: 'ticket reader', scope: 'read' });
    const ticket = await ticketFor(server, reader.key);
    const follower = await followEvents(server, reader.key, withTicket(ticket), { key: null });
    follower.close();
  });

  it('refuses a ticket whose key was revoked after issuing it: 401', async () => {
    const { db } = server.database.handle;
    const key = await issueApiKey(db, { name: 'revoked after issuing', scope: 'write' });
    const ticket = await ticketFor(server, key.key);
    await revokeApiKey(db, key.id);
    expect((await refusedStream(server, null, withTicket(ticket))).status).toBe(401);
  });

  it('ends an open ticket stream when its key is revoked', async () => {
    const { db } = server.database.handle;
    const key = await issueApiKey(db, { name: 'revoked while streaming', scope: 'read' });
    const follower = await followEvents(
      server,
      key.key,
      withTicket(await ticketFor(server, key.key)),
      {
        key: null,
      },
    );
    await revokeApiKey(db, key.id);
    expect(await follower.stream.ended).toBe('end');
  });

  it('is no credential for any other operation: the parameter is unknown there', async () => {
    const ticket = await ticketFor(server);
    expect((await server.api('GET', `/v1/pets${withTicket(ticket)}`, { key: null })).status).toBe(
      401,
    );
    expect((await server.api('GET', `/v1/pets${withTicket(ticket)}`)).status).toBe(400);
  });

  it('refuses an expired ticket: 401, and the purge deletes it', async () => {
    const ticket = await ticketFor(brief);
    const { db } = brief.database.handle;
    // Driven by the database's clock, which decides expiry, not by a fixed sleep.
    await vi.waitFor(
      async () => {
        const [row] = await executeRows<{ expired: boolean }>(
          db,
          sql`select bool_and(expires_at < now()) as expired from stream_tickets`,
        );
        expect(row?.expired).toBe(true);
      },
      { timeout: 5_000, interval: 100 },
    );
    expect((await refusedStream(brief, null, withTicket(ticket))).status).toBe(401);
    expect(await deleteExpiredStreamTickets(db, 100)).toBeGreaterThanOrEqual(1);
    expect(await db.select().from(streamTickets)).toEqual([]);
  });

  it('counts against the key’s stream limit, as a stream opened with the key does: 429', async () => {
    const held = await followEvents(brief, TEST_KEY);
    const refused = await refusedStream(brief, null, withTicket(await ticketFor(brief)));
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBeTruthy();
    held.close();
  });
});
