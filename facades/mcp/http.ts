/**
 * The POST /mcp exchange as a web-standard `Request → Response` function, composed from the MCP
 * SDK's own building blocks (api-spec "Meta", POST /mcp):
 *
 * - 2026-07-28 traffic (a per-request `_meta` envelope) goes to the SDK's `createMcpHandler` in
 *   strict modern mode. Its default response mode, `auto`, answers a single JSON body unless a
 *   handler emits a message before its result; ours never do (no progress, logging, sampling or
 *   elicitation), so every answer is JSON. (`responseMode: 'json'` would say the same at the price
 *   of a console warning per handler that it drops such messages; there are none to drop.) The SDK
 *   runs the whole validation ladder: the
 *   `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` cross-checks (400, -32020), unsupported
 *   revisions (400, -32022), unknown methods (404, -32601), `server/discover`, `resultType`, the
 *   `ttlMs`/`cacheScope` cache fields and `serverInfo` in each result's `_meta`.
 * - 2025-era traffic (the `initialize` handshake and everything without the envelope, as decided by
 *   the SDK's own `isLegacyRequest`) goes to a stateless streamable HTTP transport per request, with
 *   JSON responses (`enableJsonResponse`) and no session ids (`sessionIdGenerator: undefined`). The
 *   SDK's default stateless fallback would answer over SSE, hence this small leg (the composition
 *   `isLegacyRequest` documents).
 *
 * Our own code here is glue only: the Content-Type gate the SDK asks compositions to apply, the
 * batch gate (./batch.ts: size-bounded, 2025-03-26 only, each message admitted by the caller's
 * budget before anything runs), aligning the legacy leg's HTTP statuses with the contract (an
 * unknown method is 404 in every era), and answering bad params with -32602 Invalid params where the
 * SDK says -32603 Internal error. Both legs get the same body-size bound as the route.
 */
import {
  createMcpHandler,
  isJsonContentType,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
  type McpHttpHandler,
  type McpServerFactory,
} from '@modelcontextprotocol/server';
import { batchVerdict, INVALID_REQUEST, MAX_BODY_BYTES } from './batch.js';

/** JSON-RPC "Method not found". */
export const METHOD_NOT_FOUND = -32601;

/**
 * Asked before an admissible JSON-RPC batch of `messages` messages is served: resolves with nothing
 * to go ahead, or with the response to send instead (429 when the client's budget cannot cover it).
 */
export type BatchAdmission = (messages: number) => Promise<Response | undefined>;

/** A stateless MCP endpoint: one web-standard exchange at a time, nothing kept in between. */
export interface McpEndpoint {
  /**
   * Serves one POST: resolves with the JSON-RPC answer (200 JSON), 202 for notifications, or a
   * JSON-RPC error with its HTTP status (400, 404, 406, 413, 415). A JSON-RPC batch is refused (400,
   * -32600) unless ./batch.ts admits it, and then served only if `admit` (when given) lets it
   * through; otherwise its answer is sent instead. Never rejects for bad input.
   */
  handle(request: Request, admit?: BatchAdmission): Promise<Response>;
  /** Aborts in-flight exchanges (server shutdown). */
  close(): Promise<void>;
}

/** A JSON-RPC error response with `status`, as the SDK words its own (id null: no request id known). */
export function jsonRpcError(status: number, code: number, message: string, id: string | number | null = null): Response {
  return Response.json({ jsonrpc: '2.0', id, error: { code, message } }, { status });
}

/**
 * Builds the endpoint around `factory` (called once per exchange for a fresh server instance).
 * `onerror` receives rejected requests and serving failures (reporting only; it never changes the
 * response).
 */
export function createMcpEndpoint(factory: McpServerFactory, onerror?: (error: Error) => void): McpEndpoint {
  const modern: McpHttpHandler = createMcpHandler(factory, { legacy: 'reject', onerror, maxRequestBodySize: MAX_BODY_BYTES });
  return {
    async handle(request, admit) {
      if (request.method.toUpperCase() !== 'POST') return jsonRpcError(405, -32000, 'Method not allowed.');
      if (!isJsonContentType(request.headers.get('content-type'))) {
        return jsonRpcError(415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
      }
      const verdict = batchVerdict(await request.clone().text(), request.headers.get('mcp-protocol-version'));
      if (verdict.kind === 'refused') {
        onerror?.(new Error(verdict.message));
        return jsonRpcError(400, INVALID_REQUEST, verdict.message);
      }
      if (verdict.kind === 'batch' && admit) {
        const refusal = await admit(verdict.size);
        if (refusal) return refusal;
      }
      if (await isLegacyRequest(request, undefined, { maxRequestBodySize: MAX_BODY_BYTES })) {
        return withInvalidParams(await serveLegacy(factory, request, onerror));
      }
      return withInvalidParams(await modern.fetch(request));
    },
    close: async () => {
      await modern.close();
    },
  };
}

/**
 * One 2025-era exchange: a fresh server on a fresh stateless transport answering JSON, torn down
 * once the answer is built. A JSON-RPC "method not found" answer gets HTTP 404 as on the modern path.
 */
async function serveLegacy(factory: McpServerFactory, request: Request, onerror?: (error: Error) => void): Promise<Response> {
  const server = await factory({ era: 'legacy', requestInfo: request });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: MAX_BODY_BYTES,
  });
  transport.onerror = (e) => onerror?.(e);
  try {
    await server.connect(transport);
    return await withContractStatus(await transport.handleRequest(request));
  } finally {
    await transport.close().catch(() => {});
    await server.close().catch(() => {});
  }
}

/** JSON-RPC "Invalid params". */
export const INVALID_PARAMS = -32602;
/** JSON-RPC "Internal error". */
export const INTERNAL_ERROR = -32603;

/**
 * The one-line text of a list of zod issues that the SDK put into an error message (it answers a
 * request whose params fail the method's schema — `initialize` without `protocolVersion`,
 * `prompts/get` with non-string arguments, `resources/read` with a numeric uri — with -32603 and
 * the issues' JSON as message), or null when `message` is not such a list.
 */
export function zodIssuesText(message: unknown): string | null {
  if (typeof message !== 'string' || !message.trimStart().startsWith('[')) return null;
  let issues: unknown;
  try {
    issues = JSON.parse(message);
  } catch {
    return null;
  }
  if (!Array.isArray(issues) || issues.length === 0) return null;
  const parts: string[] = [];
  for (const i of issues as { path?: unknown; message?: unknown }[]) {
    if (!i || typeof i !== 'object' || !Array.isArray(i.path) || typeof i.message !== 'string') return null;
    parts.push(`${i.path.length ? `${i.path.join('.')}: ` : ''}${i.message}`);
  }
  return parts.join('; ');
}

/**
 * Bad client params are the client's error: an SDK answer of -32603 whose message is a list of
 * schema issues ({@link zodIssuesText}) becomes -32602 "Invalid params: <path>: <message>; …",
 * same HTTP status and id. Every other answer passes through unchanged.
 */
async function withInvalidParams(response: Response): Promise<Response> {
  if (!(response.headers.get('content-type') ?? '').includes('application/json')) return response;
  const text = await response.text();
  let changed = false;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return new Response(text, { status: response.status, headers: response.headers });
  }
  const fix = (m: unknown) => {
    const e = (m as { error?: { code?: unknown; message?: unknown } } | null)?.error;
    if (!e || e.code !== INTERNAL_ERROR) return;
    const issues = zodIssuesText(e.message);
    if (issues === null) return;
    e.code = INVALID_PARAMS;
    e.message = `Invalid params: ${issues}`;
    changed = true;
  };
  if (Array.isArray(body)) body.forEach(fix);
  else fix(body);
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  return new Response(changed ? JSON.stringify(body) : text, { status: response.status, headers });
}

/** Maps a 200 single JSON-RPC error answer with code -32601 to HTTP 404 (api-spec POST /mcp). */
async function withContractStatus(response: Response): Promise<Response> {
  if (response.status !== 200 || !(response.headers.get('content-type') ?? '').includes('application/json')) return response;
  const text = await response.text();
  let status = 200;
  try {
    const body = JSON.parse(text) as { error?: { code?: unknown } };
    if (!Array.isArray(body) && body.error?.code === METHOD_NOT_FOUND) status = 404;
  } catch {
    // not JSON after all: pass it on unchanged
  }
  return new Response(text, { status, headers: response.headers });
}
