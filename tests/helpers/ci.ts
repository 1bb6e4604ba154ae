/** CI is on when `CI` is set to anything but an empty string, `0` or `false`. */
export function inCI(): boolean {
  const value = (process.env.CI ?? '').trim().toLowerCase();
  return value !== '' && value !== '0' && value !== 'false';
}
