import { z } from 'zod';
import { InvalidError } from '../errors.js';

export const IDEMPOTENCY_KEY_MAX_CHARACTERS = 255;

/** An RFC 8941 sf-string: printable ASCII in quotes, with only `\"` and `\\` escaped. */
const QUOTED = /^"((?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])+)"$/;
/** Stripe's bare form: printable ASCII, no surrounding spaces, not starting with a quote. */
const BARE = /^[\x21\x23-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

/**
 * The header as the OpenAPI document describes it: every value it allows is one the service
 * accepts, so a generated client never sends a key that is refused.
 */
export const IdempotencyKeyHeaderSchema = z
  .string()
  .min(1)
  .max(IDEMPOTENCY_KEY_MAX_CHARACTERS)
  .regex(new RegExp(`${QUOTED.source}|${BARE.source}`));

function invalid(): InvalidError {
  return new InvalidError(
    `Invalid Idempotency-Key header: expected 1..${IDEMPOTENCY_KEY_MAX_CHARACTERS} printable ASCII characters, bare (abc) or as a quoted string ("abc")`,
  );
}

/**
 * The key a caller sent, or undefined when it sent none. `"abc"` and `abc` name the same key,
 * so a client may switch between the two forms between retries.
 */
export function parseIdempotencyKey(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  let key: string;
  if (header.startsWith('"')) {
    const quoted = QUOTED.exec(header);
    if (!quoted) throw invalid();
    key = (quoted[1] ?? '').replace(/\\(["\\])/g, '$1');
  } else {
    if (!BARE.test(header)) throw invalid();
    key = header;
  }
  if (key.length > IDEMPOTENCY_KEY_MAX_CHARACTERS) throw invalid();
  return key;
}
