import { randomFillSync } from 'node:crypto';
import { parseTraceParent } from '@opentelemetry/core';

/** The W3C trace a request belongs to, and the span this service opens for it. */
export interface TraceContext {
  /** 32 lowercase hex digits: the caller's, or new when it sent none or an invalid one. */
  traceId: string;
  /** 16 hex digits naming this request's span; the caller's span is its parent. */
  spanId: string;
}

/** The W3C Trace Context request header a caller's tracing sends. */
export const TRACE_CONTEXT_HEADER = 'traceparent';

/**
 * Keeps a valid `traceparent` (W3C Trace Context, validated by OpenTelemetry's own parser: a
 * version other than ff, ids not all zeros, version 00 without extra fields) and starts a new
 * trace otherwise, as the specification tells a receiver to. Node joins a repeated header
 * with commas, which no valid value contains, so two traceparents also start a new trace.
 */
export function traceContextFrom(header: string | string[] | undefined): TraceContext {
  const parent = typeof header === 'string' ? parseTraceParent(header) : null;
  return parent
    ? { traceId: parent.traceId, spanId: randomHex(SPAN_ID_BYTES) }
    : { traceId: randomHex(TRACE_ID_BYTES), spanId: randomHex(SPAN_ID_BYTES) };
}

const TRACE_ID_BYTES = 16;
const SPAN_ID_BYTES = 8;
/**
 * Random bytes drawn a few kilobytes at a time, as Node's randomUUID draws its own: a
 * randomBytes call per request took 15 µs (a syscall each), and building ids from randomUUID
 * strings allocated ~2 KB per request in string pieces. Hex is read straight off the pool.
 */
const pool = Buffer.alloc(4096);
let offset = pool.length;

function randomHex(bytes: number): string {
  if (offset + bytes > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const start = offset;
  offset += bytes;
  // The specification forbids an id of all zeros: odds of 2^-64 at worst, and a byte compared
  // with zero usually settles it at the first byte.
  for (let i = start; i < offset; i++) {
    if (pool[i] !== 0) return pool.toString('hex', start, offset);
  }
  return randomHex(bytes);
}
