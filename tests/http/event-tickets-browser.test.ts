import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserSkipNote, launchChromium } from '../helpers/browser.js';
import { freePort } from '../helpers/child-server.js';
import { newPet } from '../helpers/factories.js';
import { TEST_KEY, useTestServer } from '../helpers/server.js';

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

interface Received {
  lastEventId: string;
  event: { id: string; type: string; data: { id: number } };
}

let pageOrigin = '';
let page: Server | undefined;
const server = useTestServer(async () => {
  pageOrigin = `http://localhost:${await freePort()}`;
  return { corsOrigins: [pageOrigin] };
});

beforeAll(async () => {
  const html = `<!doctype html><title>front-end</title><script>${FOLLOWER}
follow(${JSON.stringify(server.origin)}, ${JSON.stringify(TEST_KEY)});</script>`;
  page = createServer((_, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
  });
  const port = Number(new URL(pageOrigin).port);
  await new Promise<void>((resolve) => page?.listen(port, '127.0.0.1', resolve));
});

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
