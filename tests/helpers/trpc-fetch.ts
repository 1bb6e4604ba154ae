import { expect } from 'vitest';
import { appRouter } from '../../server/routers/_app.js';
import type { Meta } from '../../server/trpc.js';
import type { Conformance } from './conformance.js';

type Envelope =
  | { result: { data: unknown } }
  | { error: { message: string; code: number; data: { code: string; httpStatus: number } } };

function operationOf(
  procedurePath: string,
): { operationId: string; successStatus: number } | undefined {
  const procedures = appRouter._def.procedures as unknown as Record<
    string,
    { _def: { meta?: Meta } }
  >;
  const meta = procedures[procedurePath]?._def.meta;
  const operationId = meta?.openapi?.operationId;
  return operationId ? { operationId, successStatus: meta.successStatus ?? 200 } : undefined;
}

/**
 * A fetch for @trpc/client (non-batching link): a procedure that is also a REST operation must
 * return data valid against that operation's documented success schema, and fail only with a
 * status the operation documents, in tRPC's error envelope.
 */
export function trpcCheckedFetch(conformance: Conformance) {
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const response = await fetch(input, init);
    const url = new URL(input instanceof Request ? input.url : input.toString());
    const procedurePath = decodeURIComponent(url.pathname.replace(/^\/trpc\//, ''));
    expect(response.headers.get('x-request-id'), `${procedurePath}: X-Request-Id`).toBeTruthy();
    const envelope = (await response.clone().json()) as Envelope;
    const operation = operationOf(procedurePath);
    if ('result' in envelope) {
      if (operation)
        conformance.checkOperation(
          operation.operationId,
          operation.successStatus,
          envelope.result.data,
        );
      return response;
    }
    expect(envelope.error.data.httpStatus, `${procedurePath}: httpStatus`).toBe(response.status);
    if (operation) {
      conformance.checkOperation(operation.operationId, response.status, {
        code: envelope.error.data.code,
        message: envelope.error.message,
        status: envelope.error.data.httpStatus,
      });
    }
    return response;
  };
}
