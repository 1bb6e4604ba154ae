import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { setHeaders } from '../pipeline/respond.js';

/** Serves an asset with `headers`, those every answer to the request carries. */
type Serve = (req: IncomingMessage, res: ServerResponse, headers: Record<string, string>) => void;

interface Asset {
  path: string;
  type: string;
  body: Buffer;
  etag: string;
  cacheControl: string;
  gzipped?: Buffer;
}

const swaggerUiDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist'));

/**
 * Loads the OpenAPI document and lists the page's own origin first among the servers, so
 * "Try it out" works wherever the service is reached (a laptop, a staging host, behind a proxy).
 */
const INIT_SCRIPT = `(async () => {
  const response = await fetch('/v1/openapi.json');
  const spec = await response.json();
  const here = { url: location.origin + '/v1', description: 'This server' };
  spec.servers = [here, ...(spec.servers || []).filter((server) => server.url !== here.url)];
  window.ui = SwaggerUIBundle({
    spec,
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
})();
`;

/** Asset URLs carry a digest of their content, so browsers may keep them for good. */
function asset(name: string, type: string, body: Buffer): Asset {
  const digest = createHash('sha256').update(body).digest('base64url').slice(0, 12);
  const dot = name.lastIndexOf('.');
  return {
    path: `/docs/assets/${name.slice(0, dot)}.${digest}${name.slice(dot)}`,
    type,
    body,
    etag: `"${digest}"`,
    cacheControl: 'public, max-age=31536000, immutable',
  };
}

function page(assets: Record<'css' | 'bundle' | 'init' | 'icon', Asset>): Asset {
  const html = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Pet Store API reference</title>
    <link rel="stylesheet" href="${assets.css.path}" />
    <link rel="icon" type="image/png" href="${assets.icon.path}" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${assets.bundle.path}"></script>
    <script src="${assets.init.path}"></script>
  </body>
</html>
`;
  // The page names the current assets, so it is revalidated on every visit.
  return {
    ...asset('docs.html', 'text/html; charset=utf-8', Buffer.from(html)),
    path: '/docs',
    cacheControl: 'no-cache',
  };
}

/**
 * Scripts only from here; inline styles because Swagger UI sets style attributes; calls
 * ("Try it out") to this origin and to the servers the document names.
 */
function contentSecurityPolicy(serverUrls: readonly string[]): string {
  const apiOrigins = [...new Set(serverUrls.map((url) => new URL(url).origin))];
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src 'self' ${apiOrigins.join(' ')}`.trim(),
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function accepts(req: IncomingMessage, encoding: string): boolean {
  const header = req.headers['accept-encoding'] ?? '';
  return header.split(',').some((part) => {
    const [name = '', ...params] = part.split(';').map((token) => token.trim());
    return name === encoding && !params.includes('q=0');
  });
}

function serveAsset(item: Asset, extraHeaders: Record<string, string> = {}): Serve {
  return (req, res, headers) => {
    setHeaders(res, headers);
    setHeaders(res, extraHeaders);
    res.setHeader('content-type', item.type);
    res.setHeader('cache-control', item.cacheControl);
    res.setHeader('etag', item.etag);
    res.appendHeader('vary', 'Accept-Encoding');
    const known = req.headers['if-none-match']?.split(',').map((tag) => tag.trim());
    if (known?.includes(item.etag)) {
      res.statusCode = 304;
      res.end();
      return;
    }
    let body = item.body;
    if (item.body.length > 1024 && accepts(req, 'gzip')) {
      // Compressed on first use and kept: the bundle shrinks about fourfold.
      item.gzipped ??= gzipSync(item.body);
      body = item.gzipped;
      res.setHeader('content-encoding', 'gzip');
    }
    res.setHeader('content-length', body.length);
    res.end(body);
  };
}

/**
 * The API reference page (Swagger UI from the swagger-ui-dist package, no CDN) and its assets,
 * held in memory: send (serve-static) stats and streams each file per request, at two to three
 * times the CPU, and compresses nothing (docs/performance.md, "Hand-written HTTP pieces").
 */
export function docsRoutes(openApiDocument: { servers?: { url: string }[] }): [string, Serve][] {
  const file = (name: string) => readFileSync(join(swaggerUiDir, name));
  const assets = {
    css: asset('swagger-ui.css', 'text/css; charset=utf-8', file('swagger-ui.css')),
    bundle: asset(
      'swagger-ui-bundle.js',
      'text/javascript; charset=utf-8',
      file('swagger-ui-bundle.js'),
    ),
    init: asset('docs.js', 'text/javascript; charset=utf-8', Buffer.from(INIT_SCRIPT)),
    icon: asset('favicon.png', 'image/png', file('favicon-32x32.png')),
  };
  const csp = contentSecurityPolicy((openApiDocument.servers ?? []).map((server) => server.url));
  return [
    ['/docs', serveAsset(page(assets), { 'content-security-policy': csp })],
    ...Object.values(assets).map((item): [string, Serve] => [item.path, serveAsset(item)]),
  ];
}
