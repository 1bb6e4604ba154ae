import { randomBytes } from 'node:crypto';
import { parseTraceParent } from '@opentelemetry/core';

/** The W3C trace a request belongs to, and the span this service opens for it. */
export interface TraceContext {
  /** 32 lowercase hex digits: the caller's, or new when it sent none or an invalid one. */
  traceId: string;
  /** 16 hex digits naming this request's span; the caller's span is its parent. */
  spanId: string;
  /** The caller's span, when its traceparent was valid. */
  parentSpanId: string | undefined;
}

/**
 * Keeps a valid `traceparent` (W3C Trace Context, validated by OpenTelemetry's own parser: a
 * version other than ff, ids not all zeros, version 00 without extra fields) and starts a new
 * trace otherwise, as the specification tells a receiver to. Node joins a repeated header
 * with commas, which no valid value contains, so two traceparents also start a new trace.
 */
export function traceContextFrom(header: string | string[] | undefined): TraceContext {
  const parent = typeof header === 'string' ? parseTraceParent(header) : null;
  const ids = randomBytes(parent ? 8 : 24).toString('hex');
  return parent
    ? { traceId: parent.traceId, spanId: ids, parentSpanId: parent.spanId }
    : { traceId: ids.slice(16), spanId: ids.slice(0, 16), parentSpanId: undefined };
}
