import { randomUUID } from 'node:crypto';

/** Short, printable and free of anything that could forge a log line or a header. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

export function requestIdFrom(header: string | string[] | undefined): string {
  return typeof header === 'string' && SANE_REQUEST_ID.test(header) ? header : randomUUID();
}
