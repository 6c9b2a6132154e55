/**
 * One MCP `tools/call` through an in-process server (protocol revision 2026-07-28: the
 * `mcp-method`/`mcp-name` headers and the request `_meta` it requires), shared by the operation
 * test files that compare a tool's result with the REST body.
 */
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Calls tool `name` with `args` over POST /mcp; resolves with the HTTP response as it is (status, headers, body). */
export function mcpToolRequest(app: FastifyInstance, name: string, args: Json) {
  return app.inject({
    method: 'POST',
    url: '/mcp',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': name,
    },
    payload: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name,
        arguments: args,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
          'io.modelcontextprotocol/clientInfo': { name: 'vitest', version: '1.0.0' },
        },
      },
    }),
  });
}

/**
 * Calls tool `name` with `args` over POST /mcp; expects HTTP 200 and returns the JSON-RPC `result`
 * (`structuredContent`, `content`, `isError`).
 */
export async function mcpToolCall(app: FastifyInstance, name: string, args: Json): Promise<Json> {
  const r = await mcpToolRequest(app, name, args);
  expect(r.statusCode, r.body).toBe(200);
  return r.json().result;
}
