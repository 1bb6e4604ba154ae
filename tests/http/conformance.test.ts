import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer();

const headers = (entries: Record<string, string>) =>
  new Headers({ 'x-request-id': 'r', 'content-type': 'application/json', ...entries });

/** The checker guards every HTTP test, so it must itself be shown to reject what it should. */
describe('the conformance check', () => {
  const url = () => `${server.baseUrl}/pets`;

  it('accepts a documented response', () => {
    expect(() => {
      server.conformance.check('GET', url(), { status: 200, headers: headers({}), body: [] });
    }).not.toThrow();
  });

  it.each([
    ['an undocumented status', { status: 418, headers: headers({}), body: [] }],
    ['a body off the schema', { status: 200, headers: headers({}), body: [{ id: 'x' }] }],
    ['a missing X-Request-Id', { status: 200, headers: new Headers(), body: [] }],
    [
      'an Error whose status disagrees',
      {
        status: 400,
        headers: headers({}),
        body: { code: 'BAD_REQUEST', message: 'm', status: 401 },
      },
    ],
  ])('rejects %s', (_, response) => {
    expect(() => {
      server.conformance.check('GET', url(), response);
    }).toThrow();
  });

  it('rejects a 201 without its required Location header', () => {
    const pet = { id: 1, name: 'Rex', categoryId: 1, status: 'available' };
    expect(() => {
      server.conformance.check('POST', url(), { status: 201, headers: headers({}), body: pet });
    }).toThrow(/Location/);
  });
});

describe('the conformance check on shared headers', () => {
  it('rejects a deprecated operation answered without its Sunset header', () => {
    const pet = { id: 1, name: 'Rex', categoryId: 1, status: 'available' };
    expect(() => {
      server.conformance.check('GET', `${server.baseUrl}/pets/1`, {
        status: 200,
        headers: headers({ deprecation: '@1', link: '<x>; rel="deprecation"', etag: '"1.1"' }),
        body: pet,
      });
    }).toThrow(/Sunset/);
  });
});
