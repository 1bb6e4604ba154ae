import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { TRPC_ERROR_CODES_BY_KEY, type TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import { $ZodError, type $ZodIssue } from 'zod/v4/core';
import { isDatabaseUnavailable } from '../../../db/errors.js';
import type { ErrorBody } from '../../domain/schemas/error.js';
import { GoneError } from '../../support/errors.js';

type Issue = NonNullable<ErrorBody['issues']>[number];

const INTERNAL_MESSAGES: Partial<Record<TRPC_ERROR_CODE_KEY, string>> = {
  INTERNAL_SERVER_ERROR: 'Internal server error',
  SERVICE_UNAVAILABLE: 'The service is temporarily unavailable; retry shortly',
};

/** tRPC's wire codes, with the parse error folded into the contract's BAD_REQUEST. */
export function contractCode(code: TRPC_ERROR_CODE_KEY): TRPC_ERROR_CODE_KEY {
  return code === 'PARSE_ERROR' ? 'BAD_REQUEST' : code;
}

/**
 * A lost database is a 503 the caller can retry; any other error we did not throw on purpose
 * is a 500; everything else keeps its code.
 */
export function toTRPCError(cause: unknown): TRPCError {
  const unexpected = !(cause instanceof TRPCError) || cause.code === 'INTERNAL_SERVER_ERROR';
  if (unexpected && isDatabaseUnavailable(cause)) {
    return new TRPCError({
      code: 'SERVICE_UNAVAILABLE',
      message: 'The database is unavailable',
      cause,
    });
  }
  return cause instanceof TRPCError
    ? cause
    : new TRPCError({ code: 'INTERNAL_SERVER_ERROR', cause });
}

function flattenIssue(issue: $ZodIssue): Issue[] {
  const path = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => ({
      path: path ? `${path}.${key}` : key,
      message: `Unknown field "${key}"`,
    }));
  }
  return [{ path, message: issue.message }];
}

function validationIssues(error: TRPCError): Issue[] | undefined {
  return error.cause instanceof $ZodError ? error.cause.issues.flatMap(flattenIssue) : undefined;
}

/**
 * The one mapping from an error to the contract's Error body. 5xx bodies never carry the
 * internal message: it may hold SQL, paths or library text; the log has the detail.
 */
export function errorBody(error: TRPCError): ErrorBody {
  if (error instanceof GoneError) return { code: 'GONE', message: error.message, status: 410 };
  const status = getHTTPStatusCodeFromError(error);
  const code = contractCode(error.code);
  const issues = validationIssues(error);
  if (status >= 500)
    return { code, message: INTERNAL_MESSAGES[code] ?? 'Internal server error', status };
  if (issues) {
    const summary = issues.map(({ path, message }) => {
      const detail = message.replace(/^Invalid input: /, '');
      return path ? `${path}: ${detail}` : detail;
    });
    return { code, message: `Invalid input: ${summary.join('; ')}`, status, issues };
  }
  return { code, message: error.message, status };
}

/**
 * The error object of tRPC's envelope (`{ error: ... }`): tRPC's own fields (the JSON-RPC code,
 * `data.code`, `data.httpStatus`, `data.path`) with the contract's message, code and issues.
 * tRPC's adapter gets it through the router's errorFormatter and the fast `/trpc` path calls it
 * directly, so both send the same shape.
 */
export function trpcErrorShape(error: TRPCError, path: string | undefined) {
  const { code, message, status, issues } = errorBody(error);
  return {
    message,
    code: TRPC_ERROR_CODES_BY_KEY[error.code],
    data: { code, httpStatus: status, path, issues },
  };
}
