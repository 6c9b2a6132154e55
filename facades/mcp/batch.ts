/**
 * Bounds on one POST /mcp exchange (issue 13 #1: a JSON-RPC batch of 100 `tools/call` requests was
 * served at the cost of one budget unit, and ten such batches took the process to 2.4 GB RSS).
 *
 * Batching by protocol revision (the decision):
 * - 2025-03-26 is the only revision served here that has JSON-RPC batches ("implementations MUST
 *   support receiving JSON-RPC batches"). A batch is taken as 2025-03-26 traffic when it has no
 *   `MCP-Protocol-Version` header (what 2025-06-18 tells servers to assume without one) or that
 *   header names 2025-03-26. It is served when it holds 1 to {@link MAX_BATCH_MESSAGES} messages,
 *   and each message costs one unit of the per-IP budget (see ./index.ts).
 * - 2025-06-18 removed batching ("Remove support for JSON-RPC batching", PR #416), 2025-11-25 kept it
 *   out, and 2026-07-28 carries one message per request with its own `_meta` envelope. A batch
 *   from any of these (by header, or with an element carrying the 2026-07-28 envelope) is refused.
 * - Every refusal is HTTP 400 with one JSON-RPC error `-32600 Invalid Request`, id null (JSON-RPC 2.0
 *   "Batch": when the batch itself is invalid the answer is a single Response object), sent before
 *   anything in the batch runs. The empty batch `[]` is refused the same way.
 * - The body itself is bounded ({@link MAX_BODY_BYTES}, 413), so no batch is expensive to look at.
 */

/** Largest POST /mcp body in bytes; a larger one is answered 413 before it is read further. */
export const MAX_BODY_BYTES = 64 * 1024;

/** Most messages one JSON-RPC batch may hold (2025-03-26 traffic only). */
export const MAX_BATCH_MESSAGES = 10;

/** The one revision served here whose clients may send JSON-RPC batches. */
export const BATCH_REVISION = '2025-03-26';

/** JSON-RPC "Invalid Request". */
export const INVALID_REQUEST = -32600;

/** `_meta` key of the 2026-07-28 per-request envelope. */
const ENVELOPE_KEY = 'io.modelcontextprotocol/protocolVersion';

/** What to do with a POST /mcp body before the SDK sees it. */
export type BatchVerdict =
  /** Not a batch (a single message, or not JSON at all): the SDK answers it as usual. */
  | { kind: 'single' }
  /** An admissible batch of `size` messages (each costs one budget unit). */
  | { kind: 'batch'; size: number }
  /** A batch to refuse with 400 and {@link INVALID_REQUEST}, before anything in it runs. */
  | { kind: 'refused'; message: string };

/**
 * Classifies the raw body text of a POST /mcp by the rules in this file's header. `protocolVersion`
 * is the request's `MCP-Protocol-Version` header (absent: 2025-03-26). Pure; never throws (text that
 * is not JSON is `single`, for the SDK to answer with -32700).
 */
export function batchVerdict(body: string, protocolVersion: string | null | undefined): BatchVerdict {
  if (!body.trimStart().startsWith('[')) return { kind: 'single' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { kind: 'single' };
  }
  if (!Array.isArray(parsed)) return { kind: 'single' };
  if (parsed.length === 0) return { kind: 'refused', message: 'Invalid Request: empty JSON-RPC batch' };
  if (parsed.length > MAX_BATCH_MESSAGES) {
    return {
      kind: 'refused',
      message: `Invalid Request: a JSON-RPC batch may hold at most ${MAX_BATCH_MESSAGES} messages (this one has ${parsed.length}); send one message per POST`,
    };
  }
  const version = protocolVersion?.trim() || BATCH_REVISION;
  if (version !== BATCH_REVISION) return refusedFor(version);
  const modern = parsed.find((m) => typeof envelopeVersion(m) === 'string');
  if (modern !== undefined) return refusedFor(String(envelopeVersion(modern)));
  return { kind: 'batch', size: parsed.length };
}

function refusedFor(version: string): BatchVerdict {
  return {
    kind: 'refused',
    message: `Invalid Request: JSON-RPC batches are not supported by protocol revision ${version} (batching was removed in 2025-06-18); send one message per POST`,
  };
}

/** The 2026-07-28 envelope's protocol version of one batch element, if it carries one. */
function envelopeVersion(message: unknown): unknown {
  if (typeof message !== 'object' || message === null) return undefined;
  const params = (message as { params?: unknown }).params;
  if (typeof params !== 'object' || params === null) return undefined;
  const meta = (params as { _meta?: unknown })._meta;
  if (typeof meta !== 'object' || meta === null) return undefined;
  return (meta as Record<string, unknown>)[ENVELOPE_KEY];
}
