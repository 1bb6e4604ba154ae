import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { expect } from 'vitest';
import type { AnyOperation } from '../../server/operations/define.js';
import { operations as registry } from '../../server/operations/registry.js';
import { createRestRouter } from '../../server/surfaces/http/rest/routes.js';

type Json = Record<string, unknown>;
type Operation = { responses: Record<string, Json> };
type HeaderObject = { $ref?: string; required?: boolean };

export interface CheckedResponse {
  status: number;
  headers: Headers;
  body: unknown;
}

export interface Conformance {
  document: Json;
  /** Fails the test unless the response is one the document allows for this request. */
  check(method: string, url: string, response: CheckedResponse): void;
  /** Fails unless `status` is documented for the operation and `body` matches its schema. */
  checkOperation(operationId: string, status: number, body: unknown): void;
  /**
   * Fails unless a `/trpc` answer is tRPC's envelope and, for a procedure that is also a REST
   * operation, its data or error is one the document allows that operation.
   */
  checkTrpc(url: string, response: CheckedResponse): void;
  /**
   * As `check` or `checkTrpc`, for a request target as sent on the wire (`/trpc/../v1/pets`),
   * which a URL would normalise into another path.
   */
  checkTarget(method: string, target: string, response: CheckedResponse): void;
  /** Fails unless `value` matches the document's schema at `ref` (`/components/schemas/Event`). */
  checkSchema(ref: string, value: unknown, context: string): void;
}

type Envelope =
  | { result: { data: unknown } }
  | { error: { message: string; code: number; data: { code: string; httpStatus: number } } };

function pointer(...segments: string[]): string {
  return segments.map((segment) => segment.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
}

/**
 * Validates live responses against the OpenAPI document the server itself serves: the status
 * must be documented for the operation, the body must match its schema (JSON Schema 2020-12,
 * as OpenAPI 3.1 uses), and every required header must be present. Requests that match no
 * operation (404, 405) must still carry the Error body. A response is matched to its operation
 * by the service's own REST router, so a static segment wins over a parameter as it does there.
 */
export async function loadConformance(
  origin: string,
  operations: ReadonlyMap<string, AnyOperation> = registry,
): Promise<Conformance> {
  const response = await fetch(`${origin}/v1/openapi.json`);
  const document = (await response.json()) as Json;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema(document, 'openapi.json');
  const paths = document.paths as Record<string, Record<string, Operation>>;
  const router = createRestRouter(operations, (route) => route.binding.path);
  /** The document's path template of an operation the path and method reach, if any. */
  const templateOf = (method: string, path: string): string | undefined => {
    if (path !== '/v1' && !path.startsWith('/v1/')) return undefined;
    const found = router.match(method, path.slice('/v1'.length) || '/');
    return found.kind === 'found' ? found.endpoint : undefined;
  };

  const sharedHeaders = ((document.components as Json | undefined)?.headers ?? {}) as Record<
    string,
    HeaderObject
  >;
  const resolveHeader = (header: HeaderObject): HeaderObject => {
    if (!header.$ref) return header;
    const resolved = sharedHeaders[header.$ref.replace('#/components/headers/', '')];
    if (!resolved) throw new Error(`Unresolvable header ${header.$ref}`);
    return resolved;
  };

  const validate = (ref: string, body: unknown, context: string) => {
    const validator = ajv.getSchema(`openapi.json#${ref}`);
    if (!validator) throw new Error(`No schema at ${ref}`);
    if (!validator(body)) {
      expect.fail(
        `${context}: body does not match ${ref}: ${ajv.errorsText(validator.errors)}\n${JSON.stringify(body)}`,
      );
    }
  };

  const findOperation = (operationId: string) => {
    for (const [template, item] of Object.entries(paths)) {
      for (const [method, operation] of Object.entries(item)) {
        if ((operation as Json).operationId === operationId) return { template, method, operation };
      }
    }
    throw new Error(`No operation ${operationId} in the document`);
  };

  const checkOperation = (operationId: string, status: number, body: unknown) => {
    const { template, method, operation } = findOperation(operationId);
    const context = `${operationId} -> ${status}`;
    const documented = operation.responses[String(status)];
    expect(documented, `${context}: status not documented`).toBeDefined();
    if (!documented?.content) {
      expect(body, `${context}: documented without a body`).toBeUndefined();
      return;
    }
    const schemaRef = `/${pointer('paths', template, method, 'responses', String(status), 'content', 'application/json', 'schema')}`;
    validate(schemaRef, body, context);
  };

  /** One call's envelope; `status` is the answer's own, unless the call was one of a batch. */
  const checkEnvelope = (procedure: string, status: number | undefined, envelope: Envelope) => {
    const rest = operations.get(procedure)?.rest;
    if ('result' in envelope) {
      if (status !== undefined) expect(status, `${procedure}: status`).toBe(200);
      if (rest) checkOperation(rest.operationId, rest.successStatus, envelope.result.data);
      return;
    }
    const { httpStatus } = envelope.error.data;
    if (status !== undefined) expect(httpStatus, `${procedure}: httpStatus`).toBe(status);
    if (rest) {
      checkOperation(rest.operationId, httpStatus, {
        code: envelope.error.data.code,
        message: envelope.error.message,
        status: httpStatus,
      });
    }
  };

  const checkTrpcPath = (pathname: string, { status, headers, body }: CheckedResponse) => {
    const path = decodeURIComponent(pathname.replace(/^\/trpc\//, ''));
    expect(headers.get('x-request-id'), `${path}: X-Request-Id`).toBeTruthy();
    const batch = Array.isArray(body);
    const procedures = batch ? path.split(',') : [path];
    const envelopes = (batch ? body : [body]) as Envelope[];
    procedures.forEach((procedure, index) => {
      const envelope = envelopes[index];
      expect(envelope, `${procedure}: envelope`).toBeDefined();
      if (envelope) checkEnvelope(procedure, batch ? undefined : status, envelope);
    });
  };

  const checkPath = (method: string, path: string, { status, headers, body }: CheckedResponse) => {
    const context = `${method} ${path} -> ${status}`;
    expect(headers.get('x-request-id'), `${context}: X-Request-Id`).toBeTruthy();
    if (status >= 400) {
      expect(headers.get('content-type'), `${context}: content type`).toMatch(/^application\/json/);
      expect((body as { status?: unknown }).status, `${context}: Error.status`).toBe(status);
    }
    const template = templateOf(method, path);
    const operation = template ? paths[template]?.[method.toLowerCase()] : undefined;
    if (!template || !operation) {
      expect([401, 404, 405], `${context}: undocumented operation`).toContain(status);
      validate('/components/schemas/Error', body, context);
      return;
    }
    const documented = operation.responses[String(status)];
    expect(documented, `${context}: status not documented`).toBeDefined();
    if (documented?.content) {
      const schemaRef = `/${pointer('paths', template, method.toLowerCase(), 'responses', String(status), 'content', 'application/json', 'schema')}`;
      validate(schemaRef, body, context);
    } else {
      // 204 and 304 are documented without content: nothing may follow the headers.
      expect(body, `${context}: documented without a body`).toBeUndefined();
      expect(headers.get('content-type'), `${context}: no content type`).toBeNull();
    }
    const documentedHeaders = (documented?.headers ?? {}) as Record<string, HeaderObject>;
    for (const [name, header] of Object.entries(documentedHeaders)) {
      if (resolveHeader(header).required) {
        expect(headers.get(name), `${context}: header ${name}`).toBeTruthy();
      }
    }
  };

  return {
    document,
    checkOperation,
    checkSchema: validate,
    checkTrpc: (url, response) => {
      checkTrpcPath(new URL(url).pathname, response);
    },
    check: (method, url, response) => {
      checkPath(method, new URL(url).pathname, response);
    },
    checkTarget: (method, target, response) => {
      // An absolute-form target (RFC 9112 §3.2.2) names its path after the authority.
      const path = target.replace(/^https?:\/\/[^/?#]*/i, '').split('?')[0] ?? '';
      if (path.startsWith('/trpc/')) checkTrpcPath(path, response);
      else checkPath(method, path, response);
    },
  };
}
