/** The header every call to the service carries: `Authorization: Bearer <key>`. */
export function authHeaders(apiKey: string | undefined): Record<string, string> {
  return apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` };
}
