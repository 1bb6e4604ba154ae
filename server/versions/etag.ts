import { TRPCError } from '@trpc/server';

/** What an ETag is made of: the resource's id and the version it is at. */
export interface Versioned {
  id: number;
  version: number;
}

/** A strong validator that changes whenever the pet does: its version, never a hash of the body. */
export function etagOf({ id, version }: Versioned): string {
  return `"${id}.${version}"`;
}

/** The entity-tags of an If-Match or If-None-Match field: `*`, or a list of quoted tags. */
function tagsOf(field: string): string[] {
  return field.match(/\*|(?:W\/)?"[^"]*"/g) ?? [];
}

/**
 * RFC 9110 §13.1.1: If-Match holds when it is `*` and the resource exists, or when one of its
 * tags is the current ETag by strong comparison (a weak tag never matches).
 */
function ifMatchHolds(field: string, current: string | undefined): boolean {
  if (current === undefined) return false;
  return tagsOf(field).some((tag) => tag === '*' || tag === current);
}

/**
 * Refuses a change whose If-Match does not hold, with 412 and nothing changed. Without the
 * field, any version may be changed.
 */
export function requireIfMatch(field: string | undefined, current: string | undefined): void {
  if (field === undefined || ifMatchHolds(field, current)) return;
  throw new TRPCError({
    code: 'PRECONDITION_FAILED',
    message:
      current === undefined
        ? 'If-Match names a version, but the resource does not exist'
        : `If-Match does not name the current version (${current}); read the resource again`,
  });
}

/**
 * RFC 9110 §13.1.2: If-None-Match matches when it is `*` or one of its tags is the current
 * ETag by weak comparison; a GET that matches is answered 304 without a body.
 */
export function ifNoneMatchMatches(field: string | undefined, current: string | undefined) {
  if (field === undefined || current === undefined) return false;
  const opaque = (tag: string) => tag.replace(/^W\//, '');
  return tagsOf(field).some((tag) => tag === '*' || opaque(tag) === opaque(current));
}
