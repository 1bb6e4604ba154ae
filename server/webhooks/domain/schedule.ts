/** The waits before each retry of a failed delivery, in seconds (the contract's schedule). */
export const DEFAULT_RETRY_DELAYS: readonly number[] = [
  5,
  5 * 60,
  30 * 60,
  2 * 3600,
  5 * 3600,
  10 * 3600,
  14 * 3600,
  20 * 3600,
  24 * 3600,
];

/** Retry-After is honoured up to this long. */
const MAX_RETRY_AFTER_SECONDS = 3600;
const JITTER = 0.2;

const DELAY = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/;
const UNIT_SECONDS = { ms: 0.001, s: 1, m: 60, h: 3600 } as const;

/** `1s,2s,4s` (WEBHOOK_RETRY_DELAYS) in seconds; undefined when it is not such a list. */
export function parseRetryDelays(text: string): number[] | undefined {
  const delays = text.split(',').map((part) => {
    const [, amount, unit] = DELAY.exec(part.trim()) ?? [];
    return amount === undefined ? Number.NaN : Number(amount) * UNIT_SECONDS[unit as 's'];
  });
  return delays.length > 0 && delays.every((delay) => delay > 0) ? delays : undefined;
}

/**
 * Seconds until the next attempt after `attempts` failed ones, ±20% so that the retries of an
 * outage do not all arrive at once; undefined when the schedule has run out.
 */
export function nextRetryIn(attempts: number, delays: readonly number[]): number | undefined {
  const delay = delays[attempts - 1];
  if (delay === undefined) return undefined;
  return delay * (1 - JITTER + Math.random() * 2 * JITTER);
}

/** A Retry-After header (seconds or an HTTP date) in seconds, at most an hour. */
export function retryAfterSeconds(header: string | undefined, now = Date.now()): number {
  if (header === undefined) return 0;
  const seconds = /^\d+$/.test(header.trim())
    ? Number(header.trim())
    : (Date.parse(header) - now) / 1000;
  return Number.isFinite(seconds) ? Math.min(Math.max(seconds, 0), MAX_RETRY_AFTER_SECONDS) : 0;
}
