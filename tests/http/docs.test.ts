import { describe, expect, it } from 'vitest';
import { browserSkipNote, launchChromium, type Browser } from '../helpers/browser.js';
import { TEST_KEY, useTestServer } from '../helpers/server.js';

const server = useTestServer();

describe('GET /docs', () => {
  it('serves the page without a key, with a CSP, revalidated on each visit', async () => {
    const response = await fetch(`${server.origin}/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain('connect-src');

    const etag = response.headers.get('etag') ?? '';
    const again = await fetch(`${server.origin}/docs`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
  });

  it('serves every asset itself, typed, compressed and cached for good', async () => {
    const html = await (await fetch(`${server.origin}/docs`)).text();
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1] ?? '');
    expect(assets.length).toBe(4);
    for (const path of assets) {
      expect(path).toMatch(/^\/docs\/assets\//);
      const response = await fetch(`${server.origin}${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('cache-control'), path).toBe(
        'public, max-age=31536000, immutable',
      );
      const type = response.headers.get('content-type') ?? '';
      expect(type, path).toMatch(
        path.endsWith('.js')
          ? /^text\/javascript/
          : path.endsWith('.css')
            ? /^text\/css/
            : /^image\/png$/,
      );
    }
    const bundle = assets.find((path) => path.includes('swagger-ui-bundle')) ?? '';
    const raw = await fetch(`${server.origin}${bundle}`, {
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(raw.headers.get('content-encoding')).toBe('gzip');
  });

  it('renders in Chromium from this origin alone, and Try it out calls the API with a key', async ({
    skip,
  }) => {
    // Outside CI a machine without Chromium reports this test skipped, with the command that
    // installs it; in CI, or with the browser installed, it always runs. The default reporter
    // shows a skip note only for a single file on a terminal, so the note also goes to stderr,
    // which every reporter prints.
    const note = browserSkipNote();
    if (note !== undefined) console.warn(`Skipped: ${note}`);
    skip(note !== undefined, note);
    const browser: Browser = await launchChromium();
    try {
      const page = await browser.context.newPage();
      const requested: string[] = [];
      const problems: string[] = [];
      page.on('request', (request) => requested.push(request.url()));
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(message.text());
      });
      page.on('pageerror', (error) => problems.push(error.message));

      await page.goto(`${server.origin}/docs`);
      for (const summary of ['List animals', 'Add an animal', 'Return one animal by id']) {
        await expect.poll(() => page.getByText(summary, { exact: true }).isVisible()).toBe(true);
      }

      await page.locator('.auth-wrapper .authorize').click();
      // The modal holds one form per security scheme: the key goes in the bearer one.
      const bearer = page.locator('.modal-ux .auth-container').filter({ hasText: 'bearerAuth' });
      await bearer.locator('input').fill(TEST_KEY);
      await bearer.locator('button.authorize').click();
      await bearer.locator('button.btn-done').click();
      await page.locator('#operations-pets-listPets .opblock-summary').click();
      await page.locator('#operations-pets-listPets .try-out__btn').click();
      await page.locator('#operations-pets-listPets .execute').click();
      const status = page.locator(
        '#operations-pets-listPets .live-responses-table tbody .response-col_status',
      );
      await expect.poll(() => status.first().textContent()).toContain('200');

      expect(requested.length).toBeGreaterThan(4);
      expect(requested.filter((url) => !url.startsWith(`${server.origin}/`))).toEqual([]);
      expect(requested).toContain(`${server.origin}/v1/pets?limit=20`);
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
