import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { TRPC_ERROR_CODES_BY_KEY, type TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import { $ZodError, type $ZodIssue } from 'zod/v4/core';
import { isDatabaseUnavailable } from '../../../db/errors.js';
import { DomainError, GoneError, type DomainErrorKind } from '../../domain/errors.js';
import type { ErrorBody } from '../../domain/schemas/error.js';

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
 * Each kind of domain error as tRPC's code. tRPC has no code for 410, so Gone travels as
 * NOT_FOUND, the nearest; errorBody gives the contract's GONE, 410.
 */
const TRPC_CODES: Record<DomainErrorKind, TRPC_ERROR_CODE_KEY> = {
  invalid: 'BAD_REQUEST',
  unauthenticated: 'UNAUTHORIZED',
  forbidden: 'FORBIDDEN',
  'not-found': 'NOT_FOUND',
  gone: 'NOT_FOUND',
  conflict: 'CONFLICT',
  'precondition-failed': 'PRECONDITION_FAILED',
  unprocessable: 'UNPROCESSABLE_CONTENT',
  'too-many-requests': 'TOO_MANY_REQUESTS',
  unavailable: 'SERVICE_UNAVAILABLE',
};

/** The domain error behind a failure: thrown as it is, or wrapped by tRPC as an internal error. */
function domainErrorOf(cause: unknown): DomainError | undefined {
  if (cause instanceof DomainError) return cause;
  const wrapped =
    cause instanceof TRPCError && cause.code === 'INTERNAL_SERVER_ERROR' ? cause.cause : undefined;
  return wrapped instanceof DomainError ? wrapped : undefined;
}

/**
 * The one mapping of a failure to tRPC's error, which both surfaces answer from: a domain
 * error becomes its code; a lost database is a 503 the caller can retry; any other error we
 * did not throw on purpose is a 500; a tRPC error keeps its code.
 */
export function toTRPCError(cause: unknown): TRPCError {
  const domain = domainErrorOf(cause);
  if (domain) {
    return new TRPCError({ code: TRPC_CODES[domain.kind], message: domain.message, cause: domain });
  }
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

/** The fields a validation failure names: tRPC's own, or a domain error's zod cause. */
function validationIssues(error: TRPCError): Issue[] | undefined {
  const cause = error.cause instanceof DomainError ? error.cause.cause : error.cause;
  return cause instanceof $ZodError ? cause.issues.flatMap(flattenIssue) : undefined;
}

/**
 * The one mapping from an error to the contract's Error body. 5xx bodies never carry the
 * internal message: it may hold SQL, paths or library text; the log has the detail.
 */
export function errorBody(error: TRPCError): ErrorBody {
  if (error.cause instanceof GoneError)
    return { code: 'GONE', message: error.message, status: 410 };
  const status = getHTTPStatusCodeFromError(error);
  const generic = contractCode(error.code);
  if (status >= 500) {
    return {
      code: generic,
      message: INTERNAL_MESSAGES[generic] ?? 'Internal server error',
      status,
    };
  }
  const code = (error.cause instanceof DomainError ? error.cause.code : undefined) ?? generic;
  const issues = validationIssues(error);
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
