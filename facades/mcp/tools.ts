/**
 * The registry as MCP tools (api-spec "Meta", POST /mcp; DESIGN "one operation registry"): every
 * non-internal operation is one read-only tool named by its operation name, described by its
 * summary, with the registry's parameters as input schema and `op.result` (when present) as output
 * schema. A call runs the operation through the same executor as REST, so the result carries the
 * very JSON the REST route sends: `structuredContent` is the REST body and the one text block is
 * `JSON.stringify(body)`, byte for byte what REST writes.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { McpServer, StandardSchemaWithJSON, ToolAnnotations } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { Executor } from '../execute.js';
import type { AnyOperation } from '../operation.js';

/** Every tool is a lookup: it reads, never writes, and gives the same answer for the same input. */
export const READ_ONLY: Readonly<ToolAnnotations> = Object.freeze({
  readOnlyHint: true,
  idempotentHint: true,
  destructiveHint: false,
  openWorldHint: false,
});

/** JSON Schema dialect MCP tool schemas use (SEP-1613 / SEP-2106: draft 2020-12). */
const TARGET = 'draft-2020-12';

/** The operations published as tools: the registry minus its internal entries (healthz). */
export function toolOperations(ops: readonly AnyOperation[]): AnyOperation[] {
  return ops.filter((op) => !op.internal);
}

/**
 * A Standard Schema that advertises `json` but accepts every value unchanged. Tool arguments are
 * validated once, by the executor with the operation's own zod parameters (coercing strings, applying
 * defaults and bounds), so a bad argument yields the same 400 Error body as REST instead of the SDK's
 * own input-validation message. For output schemas it likewise skips the SDK's per-call re-validation
 * of a body the REST tests already validate against `op.result`.
 */
export function advertisedSchema(json: Record<string, unknown>): StandardSchemaWithJSON {
  return {
    '~standard': {
      version: 1,
      vendor: 'nz-grocery-prices',
      validate: (value: unknown) => ({ value: value ?? {} }),
      jsonSchema: { input: () => json, output: () => json },
    },
  };
}

/**
 * The tool's input schema: the operation's zod parameters as JSON Schema on the input side
 * (`z.toJSONSchema(params, { io: 'input' })`), which carries integer bounds, defaults, enums and
 * maxLength. Always an object root (every registry `params` is a `z.object`).
 */
export function inputJsonSchema(op: AnyOperation): Record<string, unknown> {
  return z.toJSONSchema(op.params, { target: TARGET, io: 'input' }) as Record<string, unknown>;
}

/**
 * The tool's output schema from `op.result`, or undefined when the operation has none (or it cannot
 * be expressed as JSON Schema). Any root is allowed (SEP-2106, revision 2026-07-28): an array body is
 * advertised as an array. On 2025-era requests the SDK's wire codec projects a non-object root to
 * `{ type: 'object', properties: { result: <schema> }, required: ['result'] }` and wraps the
 * structured result the same way, as those revisions require an object.
 */
export function outputJsonSchema(op: AnyOperation): Record<string, unknown> | undefined {
  if (!op.result) return undefined;
  try {
    return z.toJSONSchema(op.result, { target: TARGET, io: 'output', unrepresentable: 'any' }) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** The description of a tool: the operation summary and description, plus how an array body travels on 2025-era requests. */
export function toolDescription(op: AnyOperation, output: Record<string, unknown> | undefined): string {
  const arrayBody = output !== undefined && output.type === 'array';
  const text = op.description ? `${op.summary} ${op.description}` : op.summary;
  return arrayBody
    ? `${text} Returns a JSON array (on protocol revisions before 2026-07-28 structuredContent wraps it as {"result": [...]}).`
    : text;
}

/** One tool, prepared once per server process from its operation. */
export interface ToolDefinition {
  op: AnyOperation;
  description: string;
  /** Advertises the registry parameters; accepts any arguments (the executor validates). */
  inputSchema: StandardSchemaWithJSON;
  /** Advertises `op.result`, when it can be expressed as JSON Schema. */
  outputSchema?: StandardSchemaWithJSON;
}

/**
 * The tool definitions of the non-internal operations of `ops`, with their JSON Schemas converted
 * once (servers are built per request; the schemas never change).
 * @throws when an operation's parameters cannot be expressed as JSON Schema (a registry bug,
 *   surfacing when the server is built).
 */
export function toolDefinitions(ops: readonly AnyOperation[]): ToolDefinition[] {
  return toolOperations(ops).map((op) => {
    const output = outputJsonSchema(op);
    return {
      op,
      description: toolDescription(op, output),
      inputSchema: advertisedSchema(inputJsonSchema(op)),
      ...(output && { outputSchema: advertisedSchema(output) }),
    };
  });
}

/** One tool call's answer as HTTP would have said it: its status and `Retry-After` (a 503's). */
export interface ToolAnswer {
  status: number;
  /** The outcome's `Retry-After`, seconds (an outage's or a refusal under load's). */
  retryAfter?: string;
}

/**
 * The answers of the tool calls of one exchange, in order: the POST /mcp route runs the exchange
 * inside `toolStatuses.run([], …)` and reads them afterwards to choose the response's caching and
 * `Retry-After` headers (facades/mcp/index.ts). Outside such a run nothing is recorded.
 */
export const toolStatuses = new AsyncLocalStorage<ToolAnswer[]>();

/**
 * Registers every tool of `tools` on `server`, annotated {@link READ_ONLY}. A call runs
 * `run(op, arguments)`; a 200 outcome becomes `{ structuredContent: body, content: [text] }` with
 * `text` = `JSON.stringify(body)` (what REST sends), any other outcome (400 bad parameter, 404
 * unknown thing, 503, 500) a tool error (`isError: true`) carrying the contract Error body the same
 * two ways. The outcome's status (and `Retry-After`) is recorded in {@link toolStatuses}. `onFailure` receives the
 * error behind a 500 or a 503 with its status (for logging; never sent). Never throws for bad input.
 */
export function registerTools(
  server: McpServer,
  tools: readonly ToolDefinition[],
  run: Executor,
  onFailure?: (op: AnyOperation, cause: unknown, status: number) => void,
): void {
  for (const { op, description, inputSchema, outputSchema } of tools) {
    server.registerTool(
      op.name,
      { description, inputSchema, ...(outputSchema && { outputSchema }), annotations: { ...READ_ONLY } },
      async (args: unknown) => {
        const outcome = await run(op, isRecord(args) ? args : {});
        const retryAfter = outcome.headers?.['Retry-After'];
        toolStatuses.getStore()?.push({ status: outcome.status, ...(retryAfter !== undefined && { retryAfter }) });
        if (outcome.cause !== undefined) onFailure?.(op, outcome.cause, outcome.status);
        const text = typeof outcome.body === 'string' ? outcome.body : JSON.stringify(outcome.body);
        return {
          content: [{ type: 'text' as const, text }],
          structuredContent: outcome.body,
          ...(outcome.status !== 200 && { isError: true }),
        };
      },
    );
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
