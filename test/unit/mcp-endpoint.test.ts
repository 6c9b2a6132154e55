/**
 * The POST /mcp endpoint's transport configuration (facades/mcp/http.ts; issue 28 item 4: the test
 * log repeated the SDK's `responseMode: 'json'` warning once per test server). The endpoint is built
 * from the real server factory and the registry, with a stub executor in place of the database (the
 * tools' results are not the point here; test/integration/mcp.test.ts checks them on real data):
 * building it and serving both protocol eras prints no warning, and every answer is one JSON body,
 * never an SSE stream, whatever the client's Accept allows.
 */
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import type { Executor } from '../../facades/execute.js';
import { createMcpEndpoint, type McpEndpoint } from '../../facades/mcp/http.js';
import { createServerFactory, MODERN_REVISION } from '../../facades/mcp/server.js';
import { buildMetaDocuments } from '../../facades/meta/index.js';
import { operations } from '../../facades/operations.js';

const BASE = 'http://localhost:8080';
const RETAILERS = [{ slug: 'woolworths', name: 'Woolworths' }];
const run: Executor = async () => ({ status: 200, contentType: 'application/json; charset=utf-8', body: RETAILERS });
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN_REVISION,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'vitest', version: '1.0.0' },
};

let warn: MockInstance<typeof console.warn>;
let endpoint: McpEndpoint | undefined;

beforeEach(() => {
  warn = vi.spyOn(console, 'warn');
});

afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
  warn.mockRestore();
});

/** A fresh endpoint over the registry (what registerMcp builds). */
function build(): McpEndpoint {
  const factory = createServerFactory({ run, operations, documents: buildMetaDocuments(operations, BASE), baseUrl: BASE });
  return createMcpEndpoint(factory);
}

function post(body: unknown, headers: Record<string, string>): Request {
  return new Request(`${BASE}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
}

/** A 2026-07-28 request with its `_meta` envelope and the headers the revision requires. */
function modern(id: number, method: string, params: Record<string, unknown> = {}): Request {
  const headers: Record<string, string> = { 'mcp-protocol-version': MODERN_REVISION, 'mcp-method': method };
  if (typeof params.name === 'string') headers['mcp-name'] = params.name;
  return post({ jsonrpc: '2.0', id, method, params: { ...params, _meta: ENVELOPE } }, headers);
}

/** Expects one JSON-RPC result in a JSON body (not an SSE stream) and returns it. */
async function jsonResult(response: Response): Promise<Record<string, unknown>> {
  const text = await response.text();
  expect(response.status, text).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  const body = JSON.parse(text) as { result?: Record<string, unknown>; error?: unknown };
  expect(body.error, text).toBeUndefined();
  return body.result ?? {};
}

const warnings = () => warn.mock.calls.map((args) => args.map(String).join(' '));

describe('POST /mcp transport', () => {
  it('building the endpoint prints no warning', () => {
    endpoint = build();
    expect(warnings()).toEqual([]);
  });

  it('answers 2026-07-28 requests with one JSON body and prints no warning', async () => {
    endpoint = build();
    const list = await jsonResult(await endpoint.handle(modern(1, 'tools/list')));
    expect((list.tools as { name: string }[]).map((t) => t.name)).toContain('list_retailers');
    const call = await jsonResult(await endpoint.handle(modern(2, 'tools/call', { name: 'list_retailers', arguments: {} })));
    expect(call.structuredContent).toEqual(RETAILERS);
    expect(warnings()).toEqual([]);
  });

  it('answers the 2025-era initialize handshake with one JSON body and prints no warning', async () => {
    endpoint = build();
    const init = await jsonResult(
      await endpoint.handle(post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'vitest', version: '1.0.0' } } }, {})),
    );
    expect(init.protocolVersion).toBe('2025-11-25');
    const list = await jsonResult(await endpoint.handle(post({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }, { 'mcp-protocol-version': '2025-11-25' })));
    expect((list.tools as unknown[]).length).toBeGreaterThan(0);
    expect(warnings()).toEqual([]);
  });
});
