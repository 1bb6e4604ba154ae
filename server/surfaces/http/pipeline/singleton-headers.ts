import type { IncomingMessage } from 'node:http';
import { TRPCError } from '@trpc/server';

/**
 * Fields a request may carry once. Node keeps the first of two `Host` or `Authorization` lines
 * and joins two `Idempotency-Key` lines with ", ", so a proxy that reads the last one, or
 * both, would act on another request than ours (RFC 9112 §3.2: two Hosts are a 400).
 */
const NAMES = ['Host', 'Authorization', 'Idempotency-Key', 'Content-Type'] as const;
export type SingletonName = (typeof NAMES)[number];
const SINGLETONS: ReadonlyMap<string, SingletonName> = new Map(
  NAMES.map((name) => [name.toLowerCase(), name]),
);

/** The first field the request carries more than once of those it may carry once. */
export function repeatedSingleton(req: IncomingMessage): SingletonName | undefined {
  const raw = req.rawHeaders;
  let seen: string[] | undefined;
  for (let index = 0; index < raw.length; index += 2) {
    const name = (raw[index] ?? '').toLowerCase();
    const singleton = SINGLETONS.get(name);
    if (!singleton) continue;
    if (seen?.includes(name)) return singleton;
    (seen ??= []).push(name);
  }
  return undefined;
}

export function repeatedMessage(name: SingletonName): string {
  return `The request carries more than one ${name} header`;
}

/** The refusal of a repeated field other than Authorization (that one is the caller's 401). */
export function refuseRepeated(name: SingletonName): TRPCError {
  return new TRPCError({ code: 'BAD_REQUEST', message: repeatedMessage(name) });
}
