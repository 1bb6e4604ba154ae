import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DatabaseHandle } from '../db/client.js';
import { Authenticator } from './auth/authenticator.js';
import { createRequestHandler } from './http/handler.js';
import type { Logger } from './logger.js';
import { buildOpenApiDocument } from './openapi/document.js';
import { appRouter, createCaller } from './routers/_app.js';

export interface AppOptions {
  database: DatabaseHandle;
  logger: Logger;
  apiKeys: readonly string[];
  publicBaseUrl: string;
  stagingBaseUrl?: string | undefined;
  trustProxy: boolean;
  /** Defaults suit production; tests lower them to prove slow clients are cut off. */
  timeouts?: Partial<HttpTimeouts>;
}

export interface HttpTimeouts {
  /** The whole request, headers and body, must arrive within this. */
  requestMs: number;
  headersMs: number;
  keepAliveMs: number;
}

const DEFAULT_TIMEOUTS: HttpTimeouts = { requestMs: 30_000, headersMs: 10_000, keepAliveMs: 5_000 };

export interface App {
  server: Server;
  authenticator: Authenticator;
  listen(port: number, host: string): Promise<AddressInfo>;
  /** Stops accepting, lets in-flight requests finish (up to `graceMs`), then closes the rest. */
  close(graceMs?: number): Promise<void>;
}

export function createApp(options: AppOptions): App {
  const { database, logger } = options;
  const authenticator = new Authenticator(database.db, options.apiKeys, (error: unknown) => {
    logger.warn({ err: error }, 'could not record API key use');
  });
  const handler = createRequestHandler({
    router: appRouter,
    createCaller,
    database,
    authenticator,
    logger,
    openApiDocument: buildOpenApiDocument(appRouter, {
      productionUrl: options.publicBaseUrl,
      stagingUrl: options.stagingBaseUrl,
    }),
    trustProxy: options.trustProxy,
    fallbackOrigin: new URL(options.publicBaseUrl).origin,
  });
  const timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  const server = createServer(
    {
      // Slow clients must not hold sockets: a whole request within 30 s, headers within 10 s.
      requestTimeout: timeouts.requestMs,
      headersTimeout: timeouts.headersMs,
      keepAliveTimeout: timeouts.keepAliveMs,
      // node checks the timeouts every connectionsCheckingInterval (30 s by default): check
      // often enough that a lowered timeout is honoured near its value.
      connectionsCheckingInterval: Math.min(30_000, Math.ceil(timeouts.headersMs / 4)),
      maxHeaderSize: 16 * 1024,
    },
    handler,
  );

  return {
    server,
    authenticator,
    listen: (port, host) =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolve(server.address() as AddressInfo);
        });
      }),
    close: (graceMs = 10_000) =>
      new Promise((resolve) => {
        const force = setTimeout(() => {
          server.closeAllConnections();
        }, graceMs);
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}
