import { connect, type Socket } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { listPets } from '../../db/queries/pet-pages.js';
import { runBounded } from '../helpers/load.js';
import { TEST_KEY, useTestServer } from '../helpers/server.js';

/** Lowered from production's 10 s / 30 s so the test proves the cut-off without waiting for it. */
const HEADERS_MS = 1_000;
const REQUEST_MS = 2_000;
/** Room for a loaded two-core machine; still well under what an unbounded wait would show. */
const MARGIN_MS = 2_000;

// Idle keep-alive sockets (the test's own fetch pool) must close within the margin too.
const server = useTestServer({
  timeouts: { headersMs: HEADERS_MS, requestMs: REQUEST_MS, keepAliveMs: HEADERS_MS },
});

function open(): Promise<Socket> {
  const url = new URL(server.origin);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => {
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/** Resolves with how long the server took to close the socket, and what it sent first. */
function closedBy(socket: Socket, started: number): Promise<{ ms: number; reply: string }> {
  let reply = '';
  socket.on('data', (chunk: Buffer) => (reply += chunk.toString('latin1')));
  socket.on('error', () => undefined);
  return new Promise((resolve) => {
    socket.once('close', () => {
      resolve({ ms: performance.now() - started, reply });
    });
  });
}

async function openConnections(): Promise<number> {
  return new Promise((resolve, reject) => {
    server.app.server.getConnections((error, count) => {
      if (error) reject(error);
      else resolve(count);
    });
  });
}

/** Fails unless the server holds no connection within timeoutMs. */
async function expectNoConnections(timeoutMs: number): Promise<void> {
  await vi.waitFor(
    async () => {
      expect(await openConnections()).toBe(0);
    },
    {
      timeout: timeoutMs,
      interval: 50,
    },
  );
}

async function petNames(): Promise<string[]> {
  const rows = await listPets(server.database.handle.db, { limit: 1_000 });
  return rows.map((pet) => pet.name);
}

const request = (body: string, length = Buffer.byteLength(body), path = '/v1/pets') =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TEST_KEY}\r\n` +
  `Content-Type: application/json\r\nContent-Length: ${length}\r\n\r\n${body}`;

/** A 408 as every error is answered: the Error body and an X-Request-Id. */
function expectTimeoutAnswer(reply: string): void {
  const [head = '', body = ''] = reply.split('\r\n\r\n');
  expect(head).toMatch(/^HTTP\/1\.1 408 /);
  expect(head).toMatch(/\r\nX-Request-Id: [0-9a-f-]{36}\r\n/i);
  expect(head).toMatch(/\r\nContent-Type: application\/json\r\n/i);
  expect(JSON.parse(body)).toMatchObject({ code: 'REQUEST_TIMEOUT', status: 408 });
}

describe('slow and broken clients', () => {
  it('closes a connection whose headers never end (slowloris) within the headers timeout', async () => {
    const socket = await open();
    const started = performance.now();
    const closed = closedBy(socket, started);
    socket.write('GET /v1/pets HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    // One more header line every 200 ms, for at most 50 lines: never the blank line that ends them.
    const drip = setInterval(() => {
      if (!socket.destroyed) socket.write(`X-Drip-${Math.round(performance.now())}: 1\r\n`);
    }, 200);
    const stopDrip = setTimeout(() => {
      clearInterval(drip);
    }, 50 * 200);
    const { ms, reply } = await closed;
    clearInterval(drip);
    clearTimeout(stopDrip);
    expect(ms).toBeLessThan(HEADERS_MS + MARGIN_MS);
    expectTimeoutAnswer(reply);
  });

  // Both surfaces read bodies themselves: REST, and tRPC's plain calls on the lean path.
  it.each(['/v1/pets', '/trpc/pets.create'])(
    'closes a connection whose body to %s stops halfway, and creates nothing',
    async (path) => {
      const body = JSON.stringify({ name: 'half a body', categoryId: 1 });
      const socket = await open();
      const started = performance.now();
      const closed = closedBy(socket, started);
      socket.write(request(body.slice(0, 20), Buffer.byteLength(body), path));
      const { ms, reply } = await closed;
      expect(ms).toBeLessThan(REQUEST_MS + MARGIN_MS);
      expectTimeoutAnswer(reply);
      expect(await petNames()).not.toContain('half a body');
      await expectNoConnections(MARGIN_MS);
    },
  );

  it.each(['/v1/pets', '/trpc/pets.create'])(
    'creates nothing for a client that disconnects halfway through the body to %s',
    async (path) => {
      const body = JSON.stringify({ name: 'abandoned body', categoryId: 1 });
      await runBounded(20, 10, async () => {
        const socket = await open();
        socket.on('error', () => undefined);
        socket.write(request(body.slice(0, 25), Buffer.byteLength(body), path));
        // The client's own pause, not a wait for the server: whether the half body has been
        // read yet or not when it leaves, nothing may be created.
        await new Promise((resolve) => setTimeout(resolve, 20));
        socket.destroy();
      });
      await expectNoConnections(MARGIN_MS);
      expect(await petNames()).not.toContain('abandoned body');
      expect((await server.api('GET', '/v1/pets')).status).toBe(200);
    },
  );

  it('frees the connection of a client that vanishes mid-response, with nothing half-written', async () => {
    const names = Array.from({ length: 30 }, (_, i) => `vanished ${i} ✓`);
    await runBounded(names.length, 10, async (index) => {
      const socket = await open();
      socket.on('error', () => undefined);
      // Gone as soon as the request is out: the server answers into a closed socket.
      socket.end(request(JSON.stringify({ name: names[index], categoryId: 7 })));
      socket.destroy();
    });
    await runBounded(10, 10, async () => {
      const socket = await open();
      socket.on('error', () => undefined);
      socket.write('GET /v1/openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      // Read the first bytes of the document, then vanish without reading the rest.
      await new Promise((resolve) => socket.once('data', resolve));
      socket.destroy();
    });
    await expectNoConnections(MARGIN_MS + REQUEST_MS);
    const rows = await listPets(server.database.handle.db, { limit: 1_000 });
    for (const pet of rows.filter((row) => row.name.startsWith('vanished'))) {
      expect(names).toContain(pet.name);
      expect(pet).toMatchObject({ categoryId: 7, status: 'available' });
    }
    expect((await server.api('GET', '/v1/pets')).status).toBe(200);
  });
});
