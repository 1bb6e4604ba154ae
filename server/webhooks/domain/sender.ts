import { Webhook } from 'standardwebhooks';
import { isIP } from 'node:net';
import { Agent, buildConnector, request } from 'undici';
import type { ClaimedDelivery } from '../storage/deliveries.js';
import { ForbiddenAddressError, isPublicAddress, publicOnlyLookup } from './address-policy.js';

export const USER_AGENT = 'petstore-webhooks/1.0';

/** What one attempt came to: the response's status, or why there was none. */
export interface AttemptResult {
  status: number | null;
  retryAfter?: string | undefined;
  error: string | null;
}

/**
 * One pooled keep-alive agent for every delivery. Unless private addresses are allowed, its
 * sockets resolve names through publicOnlyLookup, so the address actually connected to is
 * checked, whatever the name resolved to when the endpoint was registered. undici's request()
 * follows no redirect: a 3xx is the answer, and a failure.
 */
export function createDeliveryAgent(allowPrivate: boolean): Agent {
  return new Agent({
    keepAliveTimeout: 30_000,
    connections: 64,
    connect: allowPrivate ? {} : publicOnlyConnector(),
  });
}

/**
 * Connects through publicOnlyLookup; an address literal, which sockets connect to without any
 * lookup, is checked here first.
 */
function publicOnlyConnector(): buildConnector.connector {
  const connect = buildConnector({ lookup: publicOnlyLookup });
  return (options, callback) => {
    const host = options.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) && !isPublicAddress(host)) {
      callback(new ForbiddenAddressError(host), null);
      return;
    }
    connect(options, callback);
  };
}

/** The body, as on the event stream: the event's type, its time and its data. */
export function deliveryBody(delivery: Pick<ClaimedDelivery, 'type' | 'occurredAt' | 'data'>) {
  return JSON.stringify({
    type: delivery.type,
    timestamp: delivery.occurredAt.toISOString(),
    data: delivery.data,
  });
}

/** Standard Webhooks headers, signed with every current secret (space separated). */
export function signedHeaders(
  delivery: Pick<ClaimedDelivery, 'eventId' | 'secrets'>,
  body: string,
  at: Date,
): Record<string, string> {
  const id = `evt_${delivery.eventId}`;
  const signature = delivery.secrets
    .map((secret) => new Webhook(secret).sign(id, at, body))
    .join(' ');
  return {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signature,
  };
}

/** POSTs one delivery; never throws. The response body is read and dropped (keep-alive). */
export async function attemptDelivery(
  agent: Agent,
  delivery: ClaimedDelivery,
  timeoutMs: number,
): Promise<AttemptResult> {
  const body = deliveryBody(delivery);
  try {
    const response = await request(delivery.url, {
      method: 'POST',
      dispatcher: agent,
      headers: signedHeaders(delivery, body, new Date()),
      body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.body.dump({ limit: 64 * 1024 });
    const retryAfter = response.headers['retry-after'];
    return {
      status: response.statusCode,
      retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
      error: null,
    };
  } catch (error) {
    return { status: null, error: describe(error) };
  }
}

/** A short reason without the URL (it may carry a token in its query). */
function describe(error: unknown): string {
  if (error instanceof Error) {
    if (error.name === 'TimeoutError' || error.name === 'AbortError') return 'timed out';
    const code = (error as { code?: unknown }).code;
    return typeof code === 'string' ? code : error.name;
  }
  return 'failed';
}
