/**
 * The errors the domain throws on purpose, in its own words: each says what went wrong, not
 * how a surface answers it. The surfaces map them to their wire (server/surfaces/trpc/errors.ts),
 * once, so the domain knows no transport.
 */

/** What kind of refusal an error is; the surfaces map each kind to a status and a code. */
export type DomainErrorKind =
  | 'invalid'
  | 'unauthenticated'
  | 'forbidden'
  | 'not-found'
  | 'gone'
  | 'conflict'
  | 'precondition-failed'
  | 'unprocessable'
  | 'too-many-requests'
  | 'unavailable';

export abstract class DomainError extends Error {
  abstract readonly kind: DomainErrorKind;
  /** The Error body's `code` when the kind's own is not precise enough (INVALID_POSITION). */
  readonly code: string | undefined = undefined;
}

/** The request itself is malformed; a `cause` that is a zod error names the fields. */
export class InvalidError extends DomainError {
  override name = 'InvalidError';
  readonly kind = 'invalid';
}

/** No valid credentials, or credentials no longer valid. */
export class UnauthenticatedError extends DomainError {
  override name = 'UnauthenticatedError';
  readonly kind = 'unauthenticated';
}

/** The caller is known but may not do this. */
export class ForbiddenError extends DomainError {
  override name = 'ForbiddenError';
  readonly kind = 'forbidden';
}

export class NotFoundError extends DomainError {
  override name = 'NotFoundError';
  readonly kind = 'not-found';
}

/** What was asked for existed but is no longer kept (an event past the retention). */
export class GoneError extends DomainError {
  override name = 'GoneError';
  readonly kind = 'gone';
}

/** The resource's current state refuses the change. */
export class ConflictError extends DomainError {
  override name = 'ConflictError';
  readonly kind = 'conflict';
}

/** A conditional request's condition (If-Match, If-None-Match) does not hold. */
export class PreconditionFailedError extends DomainError {
  override name = 'PreconditionFailedError';
  readonly kind = 'precondition-failed';
}

/** Well-formed, but it names something that cannot be used (a missing pet, a reused key). */
export class UnprocessableError extends DomainError {
  override name = 'UnprocessableError';
  readonly kind = 'unprocessable';
}

/** The caller holds or asks too much at once; it may retry later. */
export class TooManyRequestsError extends DomainError {
  override name = 'TooManyRequestsError';
  readonly kind = 'too-many-requests';
}

/** The service cannot serve this now (shutting down); the caller may retry elsewhere or later. */
export class UnavailableError extends DomainError {
  override name = 'UnavailableError';
  readonly kind = 'unavailable';
}
