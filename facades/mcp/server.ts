/**
 * The MCP server definition: one factory producing a fresh, fully registered `McpServer` per HTTP
 * exchange (the SDK's stateless serving model), shared by the 2026-07-28 path and the legacy
 * 2025-era path so the two eras can never drift apart. Tools come from the operation registry
 * (./tools.ts), resources from the generated descriptions (./resources.ts), prompts from ./prompts.ts
 * (checked against the same registry).
 */
import fs from 'node:fs';
import path from 'node:path';
import { McpServer, type CacheHint, type McpServerFactory } from '@modelcontextprotocol/server';
import { ROOT_DIR } from '../../src/env.js';
import type { Executor } from '../execute.js';
import type { MetaDocuments } from '../meta/index.js';
import type { AnyOperation } from '../operation.js';
import { promptDefinitions, registerPrompts, type PromptDefinition } from './prompts.js';
import { registerResources } from './resources.js';
import { registerTools, toolDefinitions } from './tools.js';

/** Protocol revision of the per-request envelope era (api-spec "Versioning" 4). */
export const MODERN_REVISION = '2026-07-28';

/** Legacy revisions served through the `initialize` handshake, newest first (api-spec "Versioning" 4). */
export const LEGACY_REVISIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;

/** Every revision this endpoint speaks. An `initialize` naming any other gets 2025-11-25 counter-offered. */
export const SUPPORTED_REVISIONS: readonly string[] = [MODERN_REVISION, ...LEGACY_REVISIONS];

const pkg = JSON.parse(fs.readFileSync(path.join(ROOT_DIR, 'package.json'), 'utf8')) as { name: string; version: string };

/** Identity reported in `initialize`, `server/discover` and every 2026-07-28 result's `_meta` (package.json). */
export const SERVER_INFO: Readonly<{ name: string; title: string; version: string }> = Object.freeze({
  name: pkg.name,
  title: 'NZ grocery prices',
  version: pkg.version,
});

/**
 * Cache hint of every cacheable 2026-07-28 result (`ttlMs`/`cacheScope` on tools/list,
 * prompts/list, resources/list, resources/read and server/discover): the HTTP rule of the whole API,
 * `Cache-Control: public, max-age=300` (api-spec "Global conventions: Caching").
 */
export const CACHE_HINT: Readonly<CacheHint> = Object.freeze({ ttlMs: 300_000, cacheScope: 'public' as const });

/** The `instructions` of `initialize` and `server/discover`, naming the prompts that are registered. */
function instructions(prompts: readonly PromptDefinition[]): string {
  return (
    'Read-only lookups of New Zealand supermarket shelf prices (integer NZ cents, NZ calendar days). ' +
    'Every tool returns the same JSON as the REST operation of the same name under /api/v1. ' +
    `Prompts (${prompts.map((p) => p.name).join(', ')}) spell out common workflows with these tools. ` +
    'For bulk work use the nightly export (resource export-manifest), not repeated tool calls.'
  );
}

/** What {@link createServerFactory} needs. */
export interface ServerFactoryOptions {
  /** Runs an operation exactly as REST does. */
  run: Executor;
  /** The registry (tools are its non-internal entries). */
  operations: readonly AnyOperation[];
  /** The generated descriptions, exposed as resources. */
  documents: MetaDocuments;
  /** Base URL of the resource URIs, without a trailing slash. */
  baseUrl: string;
  /** Receives the error behind a tool's 500 or 503 outcome, with the status (for logging). */
  onFailure?: (op: AnyOperation, cause: unknown, status: number) => void;
}

/**
 * A factory of fresh `McpServer` instances (one per exchange; the SDK refuses to reuse one) with
 * the registry's tools, the prompts and the three resources. Capabilities: tools, prompts and
 * resources, none with `listChanged` nor `subscribe` (the lists are fixed for the life of the process).
 * @throws when a tool's schemas cannot be built (see toolDefinitions) or a prompt names a tool the
 *   registry does not publish (see promptDefinitions), at creation, not per request.
 */
export function createServerFactory(opts: ServerFactoryOptions): McpServerFactory {
  const tools = toolDefinitions(opts.operations);
  const prompts = promptDefinitions(opts.operations);
  const text = instructions(prompts);
  return () => {
    const server = new McpServer(SERVER_INFO, {
      capabilities: {
        tools: { listChanged: false },
        prompts: { listChanged: false },
        resources: { listChanged: false, subscribe: false },
      },
      instructions: text,
      supportedProtocolVersions: [...SUPPORTED_REVISIONS],
      cacheHints: {
        'tools/list': CACHE_HINT,
        'prompts/list': CACHE_HINT,
        'resources/list': CACHE_HINT,
        'resources/templates/list': CACHE_HINT,
        'resources/read': CACHE_HINT,
        'server/discover': CACHE_HINT,
      },
    });
    registerTools(server, tools, opts.run, opts.onFailure);
    registerPrompts(server, prompts);
    registerResources(server, opts.documents, opts.baseUrl);
    return server;
  };
}
