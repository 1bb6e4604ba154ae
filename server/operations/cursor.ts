import { createHmac, createSecretKey, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { InvalidError } from '../domain/errors.js';
import { validate } from '../domain/schemas/validate.js';

/**
 * Used when CURSOR_SECRET is not configured. A cursor only grants what the query parameters
 * already allow, so a known secret does not open anything; it does let a caller forge a cursor
 * that passes the check, which a deployment-specific secret prevents.
 */
export const DEFAULT_CURSOR_SECRET = 'petstore-cursor-secret-change-me-in-production';

/** Which listing a cursor belongs to, and how it names its filters in messages. */
export interface CursorScope {
  /** Covered by the MAC: a cursor of one listing is not valid for another. */
  tag: string;
  describe(filter: string | null): string;
}

const PayloadSchema = z.strictObject({
  a: z.int().min(0).max(Number.MAX_SAFE_INTEGER),
  s: z.string().nullable(),
});

/** 16 bytes of HMAC-SHA-256: far beyond guessing, and keeps Link headers short. */
const MAC_BYTES = 16;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

function badCursor(detail: string, input: string): InvalidError {
  // Shaped like a validation failure so the Error body names the `cursor` field in `issues`.
  return new InvalidError(`Invalid cursor: ${detail}`, {
    cause: new z.ZodRealError([{ code: 'custom', path: ['cursor'], message: detail, input }]),
  });
}

/**
 * Cursors are `base64url(JSON payload) "." base64url(MAC)`: URL-safe as they are, opaque to
 * callers, and any change to either part (or a cursor minted with another secret or for another
 * listing) fails the MAC check. A cursor holds the last id seen (`a`) and the filters it was
 * issued for (`s`), and is valid only with the same filters.
 */
export function createCursorCodec(secret: string) {
  // Imported once, not from the string on every cursor.
  const key = createSecretKey(Buffer.from(secret, 'utf8'));
  const mac = (scope: CursorScope, payload: string) =>
    createHmac('sha256', key).update(`${scope.tag}.${payload}`).digest().subarray(0, MAC_BYTES);

  const read = (scope: CursorScope, cursor: string) => {
    const [payload, signature, ...rest] = cursor.split('.');
    if (!payload || !signature || rest.length > 0 || !BASE64URL.test(payload + signature)) {
      throw badCursor('not a cursor issued by this service', cursor);
    }
    const given = Buffer.from(signature, 'base64url');
    const expected = mac(scope, payload);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw badCursor('altered or not issued by this service', cursor);
    }
    let decoded: unknown;
    try {
      decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      throw badCursor('not a cursor issued by this service', cursor);
    }
    const parsed = validate(PayloadSchema, decoded);
    if (!parsed.success) throw badCursor('not a cursor issued by this service', cursor);
    return parsed.data;
  };

  return {
    encode(scope: CursorScope, after: number, filter: string | null): string {
      const payload = Buffer.from(JSON.stringify({ a: after, s: filter })).toString('base64url');
      return `${payload}.${mac(scope, payload).toString('base64url')}`;
    },

    /** The id the next page starts after, provided the cursor is intact and for these filters. */
    decode(scope: CursorScope, cursor: string, filter: string | null): number {
      const { a, s } = read(scope, cursor);
      if (s !== filter) {
        throw badCursor(
          `was issued for ${scope.describe(s)}; this request has ${scope.describe(filter)}`,
          cursor,
        );
      }
      return a;
    },
  };
}

export type CursorCodec = ReturnType<typeof createCursorCodec>;
