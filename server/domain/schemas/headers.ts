import { z } from 'zod';
import { ENTITY_TAGS_PATTERN } from '../versions/etag.js';

/** The header fields of versioned answers and conditional requests, as documented. */
export const ETagHeader = z.string().meta({
  description:
    'Strong validator of this version of the animal (`"<id>.<version>"`); it changes whenever the animal does. Send it back in `If-Match` to change only this version, or in `If-None-Match` to read only when it changed.',
  examples: ['"42.3"'],
});

/** `*` alone or a comma-separated list of entity-tags; anything else is 400. */
const entityTags = () =>
  z.string().regex(ENTITY_TAGS_PATTERN, 'must be * alone or a comma-separated list of entity-tags');

export const IfMatchHeader = entityTags()
  .optional()
  .meta({
    description:
      'Change only if the animal is at one of these versions (ETags), or exists at all (`*`); otherwise 412 and nothing changes. Either `*` alone or a comma-separated list of entity-tags (RFC 9110 §13.1.1); anything else is 400.',
    examples: ['"42.3"'],
  });

export const IfNoneMatchHeader = entityTags()
  .optional()
  .meta({
    description:
      'Answer 304 without a body when the animal is still at one of these versions. Either `*` alone or a comma-separated list of entity-tags (RFC 9110 §13.1.2); anything else is 400.',
    examples: ['"42.3"'],
  });

export const IfNoneMatchChangeHeader = entityTags()
  .optional()
  .meta({
    description:
      'Change only if the animal is at none of these versions; `*` changes only an animal that does not exist, so it refuses every change of an existing one. Otherwise 412 and nothing changes. Either `*` alone or a comma-separated list of entity-tags (RFC 9110 §13.1.2); anything else is 400.',
    examples: ['"42.3"'],
  });
