import { createRequire } from 'node:module';

/**
 * The @trpc/server version whose wire format the fast path was checked against, call for call
 * and error for error (tests/http/trpc-wire.test.ts compares it with tRPC's own adapter). The
 * fast path writes only what that test pins: `{ result: { data } }` with 200, and errors in the
 * router's own error shape with the status tRPC gives their code.
 */
export const TRPC_WIRE_VERSION = '11.25.2';

export function installedTrpcVersion(): string {
  const manifest = createRequire(import.meta.url)('@trpc/server/package.json') as {
    version: string;
  };
  return manifest.version;
}

/** True when the installed tRPC is the one the fast path was checked against. */
export function fastPathVerified(): boolean {
  return installedTrpcVersion() === TRPC_WIRE_VERSION;
}
