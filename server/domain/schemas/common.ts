import { z } from 'zod';

/** Cursors this service issues are under 100 characters; anything far longer is not one. */
const CURSOR_MAX_CHARACTERS = 256;

/** z.int() already stops at 2^53 - 1, the largest integer a JSON number carries exactly. */
export const positiveInt64 = (description: string) =>
  z.int().min(1).meta({ format: 'int64', description });

/** The page size of every listing. */
export const limitParam = (what: string) =>
  z
    .int()
    .min(1)
    .max(100)
    .default(20)
    .meta({ description: `Maximum number of ${what} returned.` });

/** The position of a next page; valid only with the filters it was issued for. */
export const cursorParam = (filters: string) =>
  // Described before .optional(): the document generator drops meta set on the wrapper.
  z
    .string()
    .min(1)
    .max(CURSOR_MAX_CHARACTERS)
    .meta({
      description: `Opaque position taken from the \`next\` link of a previous page. Valid only with the ${filters} it was issued for.`,
    })
    .optional();

/** RFC 3339 date-time in UTC, as every timestamp in a response is written. */
export const timestamp = (description: string) =>
  z.iso.datetime().meta({ description, examples: ['2026-11-24T09:30:00.000Z'] });

/**
 * A regular expression source for the decimal integers 1..max, leading zeros allowed (as
 * `Number()` reads them): for documents, which can bound a number written inside a string
 * only by its pattern. Built digit by digit from max: any shorter number, or one of max's
 * length that is smaller at its first differing digit, or max itself.
 */
export function decimalUpTo(max: number): string {
  const digits = String(max);
  const alternatives = digits.length > 1 ? [`[1-9]\\d{0,${digits.length - 2}}`] : [];
  for (let at = 0; at < digits.length; at++) {
    const digit = Number(digits[at]);
    const low = at === 0 ? 1 : 0;
    if (digit > low) {
      const rest = digits.length - at - 1;
      alternatives.push(`${digits.slice(0, at)}[${low}-${digit - 1}]${rest ? `\\d{${rest}}` : ''}`);
    }
  }
  alternatives.push(digits);
  return `0*(?:${alternatives.join('|')})`;
}
