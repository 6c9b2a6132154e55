/**
 * Meta routes and the generated descriptions (api-spec "Meta"): /openapi.json, /openapi.yaml,
 * /llms.txt and /llms-full.txt, all generated from the operation registry alone.
 * STUB: filled in by issue 3.
 */
import type { FastifyInstance } from 'fastify';
import type { AnyOperation } from '../operation.js';

/** The generated descriptions, built once per server from the registry. */
export interface MetaDocuments {
  /** The OpenAPI 3.1 document (an object). */
  openapi: Record<string, unknown>;
  /** The same document as JSON text. */
  openapiJson: string;
  /** The same document as YAML text. */
  openapiYaml: string;
  /** Markdown index (llms.txt). */
  llmsTxt: string;
  /** Complete Markdown reference (llms-full.txt). */
  llmsFullTxt: string;
  /** The nightly export manifest (api-spec ExportManifest), or null when no export has run. */
  exportManifest(): Promise<Record<string, unknown> | null>;
}

/** Builds every description from `ops`. */
export function buildMetaDocuments(_ops: readonly AnyOperation[], _baseUrl: string): MetaDocuments {
  return {
    openapi: {},
    openapiJson: '{}',
    openapiYaml: '{}\n',
    llmsTxt: '',
    llmsFullTxt: '',
    exportManifest: async () => null,
  };
}

/** Registers the meta routes serving `docs`. */
export function registerMeta(_app: FastifyInstance, _docs: MetaDocuments): void {}
