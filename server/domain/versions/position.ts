import { InvalidError } from '../errors.js';

/**
 * `Petstore-Position`: a WAL position of the primary, as sixteen hexadecimal digits. Fixed
 * width, so positions compare as strings: a client keeps the highest it has seen with `>`.
 */
const POSITION = /^[0-9a-f]{16}$/;

export const POSITION_HEADER = 'petstore-position';

/** A position the client sent that is not one the service issues. */
export class InvalidPositionError extends InvalidError {
  override name = 'InvalidPositionError';
  override readonly code = 'INVALID_POSITION';
}

export function formatPosition(position: bigint): string {
  return position.toString(16).padStart(16, '0');
}

/** The header as sent, or undefined when absent. */
export function parsePosition(header: string | undefined): bigint | undefined {
  if (header === undefined) return undefined;
  if (!POSITION.test(header)) {
    throw new InvalidPositionError(
      'Petstore-Position must be a position the service answered with: 16 hexadecimal digits',
    );
  }
  return BigInt(`0x${header}`);
}
