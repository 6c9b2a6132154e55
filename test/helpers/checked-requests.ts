/**
 * GET requests through an in-process server with every response checked: against /openapi.json
 * always, and a 200 against the operation's zod resource when the operation is named. Shared by the
 * operation test files (index, basket, store, chain operations).
 */
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { operations } from '../../facades/operations.js';
import type { ResponseValidator } from './openapi.js';
import { expectError } from './shape.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * `get(url, op?)` and `expect400(url, pattern)` over the server and validator the getters return
 * (getters, because test files create both in beforeAll).
 */
export function checkedRequests(app: () => FastifyInstance, responses: () => ResponseValidator) {
  const resultOf = (name: string) => operations.find((o) => o.name === name)!.result;
  /** GET through the server; the response is validated against /openapi.json, a 200 against `op`'s resource. */
  async function get(url: string, op?: string): Promise<{ status: number; headers: Json; body: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any
    const r = await app().inject({ method: 'GET', url });
    const body = String(r.headers['content-type'] ?? '').startsWith('application/json') ? r.json() : r.body;
    expect(responses().errors('GET', url, r.statusCode, body), `GET ${url} → ${r.statusCode} against the OpenAPI document`).toEqual([]);
    if (op && r.statusCode === 200) {
      const parsed = resultOf(op).safeParse(body);
      expect(parsed.success, `${url}: ${parsed.error?.message}`).toBe(true);
    }
    return { status: r.statusCode, headers: r.headers, body };
  }
  /** Expects a 400 Error body whose message matches `pattern`. */
  async function expect400(url: string, pattern: RegExp): Promise<void> {
    const r = await get(url);
    expect(r.status, url).toBe(400);
    expectError(r.body, 400);
    expect(r.body.error.message, url).toMatch(pattern);
  }
  return { get, expect400 };
}
