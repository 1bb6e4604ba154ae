import { createHmac, createSecretKey, timingSafeEqual } from 'node:crypto';
import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import type { PetStatus } from '../../db/queries/pets.js';
import { PetStatusSchema } from '../schemas/pet.js';

/**
 * Used when CURSOR_SECRET is not configured. A cursor only grants what the query parameters
 * already allow, so a known secret does not open anything; it does let a caller forge a cursor
 * that passes the check, which a deployment-specific secret prevents.
 */
export const DEFAULT_CURSOR_SECRET = 'petstore-cursor-secret-change-me-in-production';

/** Where the next page starts and the filter the cursor was issued for. */
export interface CursorPosition {
  after: number;
  status: PetStatus | undefined;
}

const PayloadSchema = z.strictObject({
  a: z.int().min(0).max(Number.MAX_SAFE_INTEGER),
  s: PetStatusSchema.nullable(),
});

/** 16 bytes of HMAC-SHA-256: far beyond guessing, and keeps Link headers short. */
const MAC_BYTES = 16;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

function badCursor(detail: string, input: string): TRPCError {
  // Shaped like a validation failure so the Error body names the `cursor` field in `issues`.
  return new TRPCError({
    code: 'BAD_REQUEST',
    message: `Invalid cursor: ${detail}`,
    cause: new z.ZodRealError([{ code: 'custom', path: ['cursor'], message: detail, input }]),
  });
}

/**
 * Cursors are `base64url(JSON payload) "." base64url(MAC)`: URL-safe as they are, opaque to
 * callers, and any change to either part (or a cursor minted with another secret) fails the
 * MAC check. The MAC covers a version tag so a future format cannot be confused with this one.
 */
export function createCursorCodec(secret: string) {
  // Imported once, not from the string on every cursor.
  const key = createSecretKey(Buffer.from(secret, 'utf8'));
  const mac = (payload: string) =>
    createHmac('sha256', key).update(`pets.v1.${payload}`).digest().subarray(0, MAC_BYTES);

  return {
    encode(position: CursorPosition): string {
      const payload = Buffer.from(
        JSON.stringify({ a: position.after, s: position.status ?? null }),
      ).toString('base64url');
      return `${payload}.${mac(payload).toString('base64url')}`;
    },

    /** The position, provided the cursor is intact and was issued for this same `status`. */
    decode(cursor: string, status: PetStatus | undefined): CursorPosition {
      const [payload, signature, ...rest] = cursor.split('.');
      if (!payload || !signature || rest.length > 0 || !BASE64URL.test(payload + signature)) {
        throw badCursor('not a cursor issued by this service', cursor);
      }
      const given = Buffer.from(signature, 'base64url');
      const expected = mac(payload);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        throw badCursor('altered or not issued by this service', cursor);
      }
      let decoded: unknown;
      try {
        decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      } catch {
        throw badCursor('not a cursor issued by this service', cursor);
      }
      const parsed = PayloadSchema.safeParse(decoded);
      if (!parsed.success) throw badCursor('not a cursor issued by this service', cursor);
      const issuedFor = parsed.data.s ?? undefined;
      if (issuedFor !== status) {
        const describe = (value: PetStatus | undefined) =>
          value ? `status=${value}` : 'no status filter';
        throw badCursor(
          `was issued for ${describe(issuedFor)}; this request has ${describe(status)}`,
          cursor,
        );
      }
      return { after: parsed.data.a, status: issuedFor };
    },
  };
}

export type CursorCodec = ReturnType<typeof createCursorCodec>;
