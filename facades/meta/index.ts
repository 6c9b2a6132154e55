/**
 * Meta routes and the generated descriptions (api-spec "Meta"): /openapi.json, /openapi.yaml,
 * /llms.txt and /llms-full.txt, all generated once per server from the operation registry alone,
 * so adding an operation adds it to every description with no other edit.
 */
import type { FastifyInstance } from 'fastify';
import { stringify } from 'yaml';
import type { AnyOperation } from '../operation.js';
import { buildLlmsFullTxt, buildLlmsTxt } from './llms.js';
import { buildOpenApi } from './openapi.js';

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
  /** The nightly export manifest (api-spec ExportManifest), or null when no export has run (or none is configured). */
  exportManifest(): Promise<Record<string, unknown> | null>;
}

/**
 * Builds every description from `ops`; links use `baseUrl` (no trailing slash). `exportManifest`
 * supplies the manifest (the server runs get_export_manifest through the graph); without it, none.
 * @throws Error when the registry is inconsistent (see buildOpenApi).
 */
export function buildMetaDocuments(
  ops: readonly AnyOperation[],
  baseUrl: string,
  exportManifest: () => Promise<Record<string, unknown> | null> = async () => null,
): MetaDocuments {
  const openapi = buildOpenApi(ops, baseUrl);
  return {
    openapi,
    openapiJson: JSON.stringify(openapi),
    openapiYaml: stringify(openapi, { aliasDuplicateObjects: false, lineWidth: 0 }),
    llmsTxt: buildLlmsTxt(ops, baseUrl),
    llmsFullTxt: buildLlmsFullTxt(ops, baseUrl, openapi),
    exportManifest,
  };
}

/** Registers GET /openapi.json, /openapi.yaml, /llms.txt and /llms-full.txt serving `docs`. */
export function registerMeta(app: FastifyInstance, docs: MetaDocuments): void {
  const serve = (url: string, type: string, body: string) =>
    app.get(url, async (_req, reply) => reply.type(type).send(body));
  serve('/openapi.json', 'application/json; charset=utf-8', docs.openapiJson);
  serve('/openapi.yaml', 'application/yaml; charset=utf-8', docs.openapiYaml);
  serve('/llms.txt', 'text/markdown; charset=utf-8', docs.llmsTxt);
  serve('/llms-full.txt', 'text/markdown; charset=utf-8', docs.llmsFullTxt);
}
