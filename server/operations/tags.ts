/**
 * The OpenAPI document's tags, in the document's order: a REST binding names one of these, so
 * an unknown tag fails typecheck.
 */
export const TAGS = {
  pets: 'The animals offered in the store.',
  store: 'Orders for the animals, and the inventory (beta).',
  events: 'Every change, as it happens (experimental).',
  webhooks: 'Every change pushed to the endpoints you register, signed (beta).',
} as const;

export type Tag = keyof typeof TAGS;
