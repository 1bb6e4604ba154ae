import { InvalidError } from '../../domain/errors.js';
import { WEBHOOK_URL_MAX } from './schemas.js';
import { addressesOf, isPublicAddress } from './address-policy.js';

const refuse = (message: string) => new InvalidError(message);

/**
 * Checks an endpoint's URL at registration: absolute, `https:` (or `http:` when private
 * addresses are allowed), no credentials, at most 2,048 characters, and a host that is and
 * resolves to public addresses only. Returns the URL as WHATWG writes it (`http://2130706433`
 * is `http://127.0.0.1/`). Delivery checks the address connected to again.
 */
export async function checkEndpointUrl(raw: string, allowPrivate: boolean): Promise<string> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse('url must be an absolute URL');
  }
  const schemes = allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) throw refuse('url must use https');
  if (url.username !== '' || url.password !== '') throw refuse('url must not hold credentials');
  if (url.href.length > WEBHOOK_URL_MAX) throw refuse('url must be at most 2048 characters');
  if (allowPrivate) return url.href;
  const addresses = await addressesOf(url.hostname);
  if (addresses.length === 0) throw refuse(`url's host ${url.hostname} does not resolve`);
  if (!addresses.every(isPublicAddress)) {
    throw refuse(
      `url's host ${url.hostname} is or resolves to a private, loopback, link-local or reserved address`,
    );
  }
  return url.href;
}
