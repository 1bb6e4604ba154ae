/**
 * getPet is deprecated by the interface document (version 1.0.0) and removed on 5 December 2030.
 * RFC 9745 wants the moment it became deprecated: 2026-11-21T00:00:00Z, the first release of
 * this service, which shipped it already deprecated.
 */
export const DEPRECATED_AT_UNIX = 1_795_219_200;
export const SUNSET_HTTP_DATE = 'Thu, 05 Dec 2030 00:00:00 GMT';

export function deprecationHeaders(origin: string): Record<string, string> {
  return {
    deprecation: `@${DEPRECATED_AT_UNIX}`,
    sunset: SUNSET_HTTP_DATE,
    link: `<${origin}/docs>; rel="deprecation"`,
  };
}
