/**
 * The generated descriptions as MCP resources (api-spec "Meta", POST /mcp: "Resources expose the
 * OpenAPI document, the full Markdown reference and the export manifest"). Each resource is
 * addressed by the URL its HTTP twin has under the service's base URL, and reads back exactly the
 * text that route serves.
 */
import { ResourceNotFoundError, type McpServer } from '@modelcontextprotocol/server';
import type { MetaDocuments } from '../meta/index.js';

/** The resource URIs under `base` (no trailing slash). */
export function resourceUris(base: string): { openapi: string; llmsFull: string; manifest: string } {
  return {
    openapi: `${base}/openapi.json`,
    llmsFull: `${base}/llms-full.txt`,
    manifest: `${base}/data/latest/manifest.json`,
  };
}

/**
 * Registers the three resources on `server`:
 * - `openapi` (`<base>/openapi.json`, application/json): `documents.openapiJson`;
 * - `llms-full` (`<base>/llms-full.txt`, text/markdown): `documents.llmsFullTxt`;
 * - `export-manifest` (`<base>/data/latest/manifest.json`, application/json): the manifest as JSON
 *   text. Reading it before any export has run answers the SDK's resource-not-found error
 *   (JSON-RPC -32602 with `data.uri`, revision 2026-07-28 "resources/read").
 */
export function registerResources(server: McpServer, documents: MetaDocuments, base: string): void {
  const uris = resourceUris(base);
  server.registerResource(
    'openapi',
    uris.openapi,
    {
      title: 'OpenAPI 3.1 description',
      description: 'The OpenAPI 3.1 description of every REST operation (also served at GET /openapi.json).',
      mimeType: 'application/json',
    },
    (uri) => ({ contents: [{ uri: uri.href, mimeType: 'application/json', text: documents.openapiJson }] }),
  );
  server.registerResource(
    'llms-full',
    uris.llmsFull,
    {
      title: 'Full reference (Markdown)',
      description: 'The complete API reference as Markdown (also served at GET /llms-full.txt).',
      mimeType: 'text/markdown',
    },
    (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/markdown', text: documents.llmsFullTxt }] }),
  );
  server.registerResource(
    'export-manifest',
    uris.manifest,
    {
      title: 'Nightly export manifest',
      description: 'The files of the latest nightly bulk export (Parquet and CSV, CC BY 4.0), with their day, sizes, rows and sha256.',
      mimeType: 'application/json',
    },
    async (uri) => {
      const manifest = await documents.exportManifest();
      if (manifest === null) throw new ResourceNotFoundError(uri.href, 'No export has run yet');
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(manifest) }] };
    },
  );
}
