import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserSkipNote, launchChromium } from '../helpers/browser.js';
import { createChildDatabase, type ChildDatabase } from '../helpers/child-database.js';
import { spawnServer, type ChildServer } from '../helpers/child-server.js';
import { freePort } from '../helpers/ports.js';
import { loadConformance, type Conformance } from '../helpers/conformance.js';
import { testDatabaseTarget } from '../helpers/database.js';

const KEY = 'cors-browser-test-key-0123456789';

/**
 * A front-end's stream reader: native EventSource cannot send Authorization, so it reads the
 * stream with fetch, and after a drop reconnects with Last-Event-ID, as EventSource would.
 * Each attempt is logged with the id it resumed after and what it got.
 */
const READER = String.raw`
window.received = [];
window.attempts = [];
async function follow(api, key) {
  let last;
  for (;;) {
    const attempt = { after: last ?? null, status: 0, error: null };
    window.attempts.push(attempt);
    try {
      const headers = { authorization: 'Bearer ' + key };
      if (last !== undefined) headers['last-event-id'] = last;
      const response = await fetch(api + '/v1/events', { headers });
      attempt.status = response.status;
      if (response.status !== 200) throw new Error('status ' + response.status);
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let pending = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        pending += value;
        const frames = pending.split('\n\n');
        pending = frames.pop();
        for (const frame of frames) {
          const data = frame.split('\n').find((line) => line.startsWith('data: '));
          if (!data) continue;
          const event = JSON.parse(data.slice('data: '.length));
          window.received.push(event);
          last = event.id;
        }
      }
    } catch (error) {
      attempt.error = String(error);
    }
    // The reader's reconnect delay, as EventSource's retry: the client's behaviour, not a wait.
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}`;

/** The page of the front-end, on an origin of its own. */
function pageServer(api: string): Server {
  const html = `<!doctype html><title>front-end</title><script>${READER}
follow(${JSON.stringify(api)}, ${JSON.stringify(KEY)});</script>`;
  return createServer((_, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
  });
}

interface PageEvent {
  id: string;
  type: string;
  data: { id: number };
}

const target = testDatabaseTarget();

describe(`a browser on another origin follows the stream across a restart (${target.kind})`, () => {
  let database: ChildDatabase;
  beforeAll(async () => {
    database = await createChildDatabase();
  });
  afterAll(() => database.destroy());

  it('resumes with Last-Event-ID and receives the next change', async ({ skip }) => {
    const note = browserSkipNote();
    if (note !== undefined) console.warn(`Skipped: ${note}`);
    skip(note !== undefined, note);
    const [apiPort, pagePort] = [await freePort(), await freePort()];
    const api = `http://127.0.0.1:${apiPort}`;
    const pageOrigin = `http://localhost:${pagePort}`;
    const env = { ...database.env, API_KEYS: KEY, PORT: String(apiPort), CORS_ORIGINS: pageOrigin };
    const page = pageServer(api);
    await new Promise<void>((resolve) => page.listen(pagePort, '127.0.0.1', resolve));
    let server: ChildServer = await spawnServer(env);
    const conformance: Conformance = await loadConformance(server.origin);
    const browser = await launchChromium();
    const problems: string[] = [];
    try {
      const tab = await browser.context.newPage();
      tab.on('console', (message) => {
        if (message.type() === 'error') problems.push(message.text());
      });
      await tab.goto(pageOrigin);
      const attempts = () =>
        tab.evaluate(
          () =>
            (globalThis as unknown as { attempts: { after: string | null; status: number }[] })
              .attempts,
        );
      const received = () =>
        tab.evaluate(() => (globalThis as unknown as { received: PageEvent[] }).received);
      await expect
        .poll(async () => (await attempts()).at(-1)?.status, { timeout: 10_000 })
        .toBe(200);

      const create = async (name: string) => {
        const response = await fetch(`${api}/v1/pets`, {
          method: 'POST',
          headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name, categoryId: 4 }),
        });
        const body = (await response.json()) as { id: number };
        conformance.check('POST', `${api}/v1/pets`, {
          status: response.status,
          headers: response.headers,
          body,
        });
        expect(response.status).toBe(201);
        return body.id;
      };
      const first = await create('Before the restart');
      await expect
        .poll(async () => (await received()).map((event) => event.data.id))
        .toEqual([first]);
      const [seen] = await received();

      await server.stop();
      server = await spawnServer(env);
      const second = await create('After the restart');
      await expect
        .poll(async () => (await received()).map((event) => event.data.id), { timeout: 20_000 })
        .toEqual([first, second]);

      const resumed = (await attempts()).filter((attempt) => attempt.status === 200).at(-1);
      expect(resumed?.after).toBe(seen?.id);
      for (const event of await received()) {
        conformance.checkSchema('/components/schemas/Event', event, `event ${event.id}`);
      }
      expect(problems.filter((text) => /CORS|Access-Control/i.test(text))).toEqual([]);
    } finally {
      await browser.close();
      await server.stop();
      await new Promise((resolve) => page.close(resolve));
    }
  }, 120_000);
});
