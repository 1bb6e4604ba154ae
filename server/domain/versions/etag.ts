import { InvalidError, PreconditionFailedError } from '../errors.js';

/** What an ETag is made of: the resource's id and the version it is at. */
export interface Versioned {
  id: number;
  version: number;
}

/** A strong validator that changes whenever the pet does: its version, never a hash of the body. */
export function etagOf({ id, version }: Versioned): string {
  return `"${id}.${version}"`;
}

/**
 * RFC 9110 §8.8.3: `[ "W/" ] DQUOTE *etagc DQUOTE`, etagc being any visible character but the
 * quote, or obs-text (Node hands header bytes above 0x7F over as Latin-1 characters). A comma
 * or a star inside the quotes belongs to the tag.
 */
const ENTITY_TAG = /(?:W\/)?"[\x21\x23-\x7E\x80-\xFF]*"/y;
/** RFC 9110 §5.6.1: a list separator with its optional whitespace. */
const SEPARATOR = /[ \t]*,[ \t]*/y;

/**
 * The same grammar as one pattern, for the OpenAPI document (tools generate and check header
 * values from it): `*` alone, or tags separated by commas, empty elements allowed.
 */
const TAG = String.raw`(?:W/)?"[\u0021\u0023-\u007E\u0080-\u00FF]*"`;
export const ENTITY_TAGS_PATTERN = new RegExp(
  String.raw`^[ \t]*(?:\*|(?:,[ \t]*)*${TAG}(?:[ \t]*(?:,[ \t]*)+${TAG})*(?:[ \t]*,)*)[ \t]*$`,
);

/** A conditional field as RFC 9110 §13.1.1 and §13.1.2 define it: `*` alone, or its tags. */
export type EntityTags = '*' | readonly string[];

/**
 * Reads `*` or a list of one or more entity-tags, empty list elements allowed (RFC 9110
 * §5.6.1.2), and nothing else: a field read loosely could turn a garbled tag into a `*` that
 * matches every version.
 */
export function parseEntityTags(field: string): EntityTags | undefined {
  const text = field.replace(/^[ \t]+|[ \t]+$/g, '');
  if (text === '*') return '*';
  const tags: string[] = [];
  let at = 0;
  let afterTag = false;
  while (at < text.length) {
    SEPARATOR.lastIndex = at;
    if (SEPARATOR.test(text)) {
      at = SEPARATOR.lastIndex;
      afterTag = false;
      continue;
    }
    // Two tags with no comma between them are no list.
    if (afterTag) return undefined;
    ENTITY_TAG.lastIndex = at;
    const tag = ENTITY_TAG.exec(text)?.[0];
    if (tag === undefined) return undefined;
    tags.push(tag);
    at = ENTITY_TAG.lastIndex;
    afterTag = true;
  }
  return tags.length > 0 ? tags : undefined;
}

/** The tags of a field sent, or 400: a request with a field it cannot read changes nothing. */
function tagsOf(name: string, field: string): EntityTags {
  const tags = parseEntityTags(field);
  if (tags) return tags;
  throw new InvalidError(
    `${name} must be * alone or a comma-separated list of entity-tags ("…" or W/"…")`,
  );
}

/** Refuses a request whose If-Match or If-None-Match is not RFC 9110's, before it runs. */
export function checkConditionalFields(ifMatch?: string, ifNoneMatch?: string): void {
  if (ifMatch !== undefined) tagsOf('If-Match', ifMatch);
  if (ifNoneMatch !== undefined) tagsOf('If-None-Match', ifNoneMatch);
}

/**
 * RFC 9110 §13.1.1: If-Match holds when it is `*` and the resource exists, or when one of its
 * tags is the current ETag by strong comparison (a weak tag never matches).
 */
function ifMatchHolds(field: string, current: string | undefined): boolean {
  const tags = tagsOf('If-Match', field);
  if (current === undefined) return false;
  return tags === '*' || tags.includes(current);
}

/**
 * Refuses a change whose If-Match does not hold, with 412 and nothing changed. Without the
 * field, any version may be changed.
 */
export function requireIfMatch(field: string | undefined, current: string | undefined): void {
  if (field === undefined || ifMatchHolds(field, current)) return;
  throw new PreconditionFailedError(
    current === undefined
      ? 'If-Match names a version, but the resource does not exist'
      : `If-Match does not name the current version (${current}); read the resource again`,
  );
}

/**
 * RFC 9110 §13.1.2: If-None-Match matches when it is `*` and the resource exists, or one of its
 * tags is the current ETag by weak comparison; a GET that matches is answered 304 without a body.
 */
export function ifNoneMatchMatches(field: string | undefined, current: string | undefined) {
  if (field === undefined || current === undefined) return false;
  const tags = tagsOf('If-None-Match', field);
  const opaque = (tag: string) => tag.replace(/^W\//, '');
  return tags === '*' || tags.some((tag) => opaque(tag) === opaque(current));
}

/** The conditional fields of a request that changes a resource, as received. */
export interface Preconditions {
  ifMatch?: string | undefined;
  ifNoneMatch?: string | undefined;
}

/**
 * RFC 9110 §13.2.2, for a change: If-Match first, then If-None-Match, which refuses the change
 * when it matches (`*` for a resource that exists: "create only"). Either refusal is 412 with
 * nothing changed; a missing resource passes If-None-Match and is then not found.
 */
export function requirePreconditions(
  { ifMatch, ifNoneMatch }: Preconditions,
  current: string | undefined,
): void {
  requireIfMatch(ifMatch, current);
  if (!ifNoneMatchMatches(ifNoneMatch, current)) return;
  throw new PreconditionFailedError(
    `If-None-Match names the current version (${current ?? ''}) or *; nothing changed`,
  );
}
