/** What the OpenAPI document says of every webhook operation, and of an unknown endpoint. */
export const BETA = 'Beta: it may still change before it is declared stable.';
export const NOT_FOUND = 'No webhook endpoint has this id.';
