import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserSkipNote, launchChromium } from '../helpers/browser.js';
import { freePort } from '../helpers/ports.js';
import { newPet } from '../helpers/factories.js';
import { TEST_KEY, useTestServer } from '../helpers/server.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

/**
 * The front-end as docs/events.md shows it: a ticket fetched with the key, then the browser's
 * own EventSource, which cannot send a header, opened with the ticket.
 */
const FOLLOWER = String.raw`
window.received = [];
window.states = [];
async function follow(api, key) {
  const response = await fetch(api + '/v1/events/tickets', {
    method: 'POST',
    headers: { authorization: 'Bearer ' + key },
  });
  const { ticket } = await response.json();
  window.ticket = ticket;
  const source = new EventSource(
    api + '/v1/events?types=pet.created&ticket=' + encodeURIComponent(ticket),
  );
  window.source = source;
  source.addEventListener('open', () => window.states.push('open'));
  source.addEventListener('error', () => window.states.push('error ' + source.readyState));
  source.addEventListener('pet.created', (message) => {
    window.received.push({ lastEventId: message.lastEventId, event: JSON.parse(message.data) });
  });
}`;

/**
 * docs/events.md's recipe for a dropped stream: the spent ticket's reconnect is refused, so the
 * page asks for a new ticket and resumes after the last event it received, trying again while
 * the network is down.
 */
const RESUMING_FOLLOWER = String.raw`
window.received = [];
window.tickets = [];
window.opened = 0;
async function follow(api, key, after) {
  const response = await fetch(api + '/v1/events/tickets', {
    method: 'POST',
    headers: { authorization: 'Bearer ' + key },
  });
  if (!response.ok) throw new Error('no ticket: ' + response.status);
  const { ticket } = await response.json();
  window.tickets.push(ticket);
  const query = new URLSearchParams({ types: 'pet.created', ticket });
  if (after) query.set('after', after);
  const source = new EventSource(api + '/v1/events?' + query);
  let last = after;
  source.addEventListener('open', () => window.opened++);
  source.addEventListener('pet.created', (message) => {
    last = message.lastEventId;
    window.received.push({ lastEventId: message.lastEventId, event: JSON.parse(message.data) });
  });
  source.addEventListener('error', () => {
    if (source.readyState === EventSource.CLOSED) followLater(api, key, last);
  });
}
function followLater(api, key, after) {
  setTimeout(() => follow(api, key, after).catch(() => followLater(api, key, after)), 1000);
}`;

interface Received {
  lastEventId: string;
  event: { id: string; type: string; data: { id: number } };
}

let pageOrigin = '';
let page: Server | undefined;
/** Between the resuming page and the service, so the test can drop its connections. */
let network: TcpProxy;
const server = useTestServer(async () => {
  pageOrigin = `http://localhost:${await freePort()}`;
  return { corsOrigins: [pageOrigin] };
});

beforeAll(async () => {
  network = await startTcpProxy('127.0.0.1', Number(new URL(server.origin).port));
  const through = `http://127.0.0.1:${network.port}`;
  const pages: Record<string, string> = {
    '/': `<!doctype html><title>front-end</title><script>${FOLLOWER}
follow(${JSON.stringify(server.origin)}, ${JSON.stringify(TEST_KEY)});</script>`,
    '/resuming': `<!doctype html><title>front-end</title><script>${RESUMING_FOLLOWER}
follow(${JSON.stringify(through)}, ${JSON.stringify(TEST_KEY)});</script>`,
  };
  page = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(pages[req.url ?? '/']);
  });
  const port = Number(new URL(pageOrigin).port);
  await new Promise<void>((resolve) => page?.listen(port, '127.0.0.1', resolve));
});

afterAll(() => network.close());
afterAll(
  () =>
    new Promise<void>((resolve) => {
      if (page)
        page.close(() => {
          resolve();
        });
      else resolve();
    }),
);

describe('a page on an allowed origin follows the stream with the native EventSource', () => {
  it('gets a ticket with fetch and the key, opens EventSource with it, and receives a change', async ({
    skip,
  }) => {
    const note = browserSkipNote();
    if (note !== undefined) console.warn(`Skipped: ${note}`);
    skip(note !== undefined, note);
    const browser = await launchChromium();
    try {
      const tab = await browser.context.newPage();
      const problems: string[] = [];
      tab.on('console', (message) => {
        if (message.type() === 'error') problems.push(message.text());
      });
      await tab.goto(pageOrigin);
      const states = () =>
        tab.evaluate(() => (globalThis as unknown as { states: string[] }).states);
      await expect.poll(states, { timeout: 10_000 }).toEqual(['open']);

      const created = await server.api<{ id: number }>('POST', '/v1/pets', { body: newPet() });
      expect(created.status).toBe(201);
      const received = () =>
        tab.evaluate(() => (globalThis as unknown as { received: Received[] }).received);
      await expect.poll(received, { timeout: 5_000 }).toHaveLength(1);
      const [first] = await received();
      expect(first?.event).toMatchObject({ type: 'pet.created', data: { id: created.body.id } });
      expect(first?.lastEventId).toBe(first?.event.id);
      server.conformance.checkSchema('/components/schemas/Event', first?.event, 'page event');
      expect(problems).toEqual([]);

      const ticket = await tab.evaluate(() => (globalThis as unknown as { ticket: string }).ticket);
      await tab.evaluate(() => {
        (globalThis as unknown as { source: EventSource }).source.close();
      });
      expect(JSON.stringify(server.logs)).not.toContain(ticket);
      expect(JSON.stringify(server.logs)).not.toContain(TEST_KEY);
    } finally {
      await browser.close();
    }
  });
});

describe('a page following with tickets, its connection dropped', () => {
  it('gets a new ticket when the spent one is refused, and resumes with every change once', async ({
    skip,
  }) => {
    const note = browserSkipNote();
    skip(note !== undefined, note);
    const browser = await launchChromium();
    try {
      const tab = await browser.context.newPage();
      await tab.goto(`${pageOrigin}/resuming`);
      const page = () =>
        tab.evaluate(() => {
          const state = globalThis as unknown as {
            received: Received[];
            tickets: string[];
            opened: number;
          };
          return {
            ids: state.received.map((message) => message.event.data.id),
            tickets: state.tickets.length,
            opened: state.opened,
          };
        });
      await expect.poll(async () => (await page()).opened, { timeout: 10_000 }).toBe(1);
      const create = async () => {
        const created = await server.api<{ id: number }>('POST', '/v1/pets', { body: newPet() });
        expect(created.status).toBe(201);
        return created.body.id;
      };
      const before = await create();
      await expect.poll(async () => (await page()).ids).toEqual([before]);

      // The network drops: the stream is cut, and nothing gets through for a while.
      await network.cut();
      const whileAway = await create();
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await network.restore();

      await expect
        .poll(async () => (await page()).ids, { timeout: 20_000 })
        .toEqual([before, whileAway]);
      const after = await create();
      await expect.poll(async () => (await page()).ids).toEqual([before, whileAway, after]);
      const { tickets, opened } = await page();
      expect({ tickets, opened }).toEqual({ tickets: 2, opened: 2 });
      const received = await tab.evaluate(
        () => (globalThis as unknown as { received: Received[] }).received,
      );
      for (const message of received) {
        server.conformance.checkSchema('/components/schemas/Event', message.event, 'page event');
        expect(message.lastEventId).toBe(message.event.id);
      }
    } finally {
      await browser.close();
    }
  }, 60_000);
});
