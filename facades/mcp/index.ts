/**
 * POST /mcp: the stateless tool-protocol endpoint (api-spec "Meta"). Every non-internal operation of
 * the registry is a read-only tool with the same JSON as its REST body. STUB: filled in by the MCP
 * work of issue 3.
 */
import type { FastifyInstance } from 'fastify';
import type { Env } from '../../src/env.js';
import type { Executor } from '../execute.js';
import type { MetaDocuments } from '../meta/index.js';
import type { AnyOperation } from '../operation.js';

/** What {@link registerMcp} needs. */
export interface McpOptions {
  /** Runs an operation exactly as REST does. */
  run: Executor;
  /** The registry (tools are its non-internal entries). */
  operations: readonly AnyOperation[];
  /** The generated descriptions, exposed as resources. */
  documents: MetaDocuments;
  env: Readonly<Env>;
}

/** Registers POST /mcp (and 405 for GET/DELETE) on `app`. */
export async function registerMcp(_app: FastifyInstance, _opts: McpOptions): Promise<void> {}
