import type { IncomingMessage } from 'node:http';
import { TRPCError } from '@trpc/server';

/**
 * Fields a request may carry once. Node keeps the first of two `Host` or `Authorization` lines
 * and joins two `Idempotency-Key` lines with ", ", so a proxy that reads the last one, or
 * both, would act on another request than ours (RFC 9112 §3.2: two Hosts are a 400).
 */
const SINGLETONS = new Map<string, { code: 'BAD_REQUEST' | 'UNAUTHORIZED'; name: string }>([
  ['host', { code: 'BAD_REQUEST', name: 'Host' }],
  ['authorization', { code: 'UNAUTHORIZED', name: 'Authorization' }],
  ['idempotency-key', { code: 'BAD_REQUEST', name: 'Idempotency-Key' }],
  ['content-type', { code: 'BAD_REQUEST', name: 'Content-Type' }],
]);

/** Refuses a request that repeats a field it may carry once, naming the field. */
export function refuseRepeatedSingletons(req: IncomingMessage): void {
  const raw = req.rawHeaders;
  let seen: string[] | undefined;
  for (let index = 0; index < raw.length; index += 2) {
    const name = (raw[index] ?? '').toLowerCase();
    const singleton = SINGLETONS.get(name);
    if (!singleton) continue;
    if (seen?.includes(name)) {
      throw new TRPCError({
        code: singleton.code,
        message: `The request carries more than one ${singleton.name} header`,
      });
    }
    (seen ??= []).push(name);
  }
}
