/** A quota of requests per fixed window, counted per API key. */
export interface RateLimitPolicy {
  limit: number;
  windowSeconds: number;
}

export type RateLimitSetting = RateLimitPolicy | 'off';

const SETTING = /^(\d+)\/(\d+)(s|m|h)$/;
const UNIT_SECONDS = { s: 1, m: 60, h: 3600 } as const;

/** `600/60s`, `100/1m`, `5000/1h`, or `off`; undefined when the text is none of these. */
export function parseRateLimit(text: string): RateLimitSetting | undefined {
  const value = text.trim().toLowerCase();
  if (value === 'off') return 'off';
  const match = SETTING.exec(value);
  if (!match?.[1] || !match[2] || !match[3]) return undefined;
  const limit = Number(match[1]);
  const windowSeconds = Number(match[2]) * UNIT_SECONDS[match[3] as keyof typeof UNIT_SECONDS];
  if (!Number.isSafeInteger(limit) || limit < 1) return undefined;
  if (!Number.isSafeInteger(windowSeconds) || windowSeconds < 1) return undefined;
  return { limit, windowSeconds };
}

/** The one policy's name in the draft's structured fields. */
const POLICY_NAME = '"default"';

/**
 * The fields of draft-ietf-httpapi-ratelimit-headers (structured-field form):
 * `RateLimit-Policy: "default";q=600;w=60` and `RateLimit: "default";r=599;t=42`.
 */
export function rateLimitFields(
  policy: RateLimitPolicy,
  remaining: number,
  resetSeconds: number,
): Record<string, string> {
  return {
    'ratelimit-policy': `${POLICY_NAME};q=${policy.limit};w=${policy.windowSeconds}`,
    ratelimit: `${POLICY_NAME};r=${remaining};t=${resetSeconds}`,
  };
}
