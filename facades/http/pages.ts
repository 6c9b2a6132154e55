/**
 * The pages a person opens in a browser (issue 20 #2, #4, #5), every asset served from this server
 * (nothing from a CDN, so they work with no outside network):
 *
 * - `GET /`: the front door. An HTML landing page saying what the service is and linking the API
 *   reference, GraphiQL, the dashboard, llms.txt, the MCP endpoint and the latest export manifest;
 *   a client preferring `application/json` (Accept) gets a small JSON index instead
 *   (`SERVICE_INDEX_SCHEMA` in facades/meta/openapi.ts). `Vary: Accept`. The page links no address
 *   that answers 404 (issue 28 #4): until the first export is published (no
 *   `<EXPORT_DIR>/latest/manifest.json`, one `stat` per request) it says the first export has not
 *   run yet instead of linking the manifest. Both variants are built once (cached like any page);
 *   a small module (facades/dashboard/freshness.js, shared with the
 *   dashboard) reads `GET /api/v1/status` and shows each chain's last collection day and a warning
 *   banner when the data is stale (issue 26), or nothing when the status does not answer.
 * - `GET /docs`: the API reference, the generated OpenAPI document rendered by Swagger UI
 *   (`@fastify/swagger-ui`, whose Swagger UI files ship inside the package; `@fastify/swagger` in
 *   static mode holds our document, since the UI plugin requires it). The online validator badge
 *   (validator.swagger.io) is off.
 * - `GET /dashboard`: the dashboard (static files of facades/dashboard/: plain ES modules, no
 *   build step), its chart library uPlot from node_modules under `/assets/uplot/<version>/`.
 * - GraphiQL's assets under `/assets/graphiql/<version>/` (./graphiql.ts; the page itself is
 *   Yoga's, at /graphql).
 *
 * Versioned assets are immutable for a year; pages follow the server-wide five-minute rule.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { latestExportDir, MANIFEST_FILE } from '../../src/services/exports.js';
import type { MetaDocuments } from '../meta/index.js';
import { API_CONVENTIONS, API_SUMMARY } from '../meta/openapi.js';
import { IMMUTABLE, registerGraphiqlAssets } from './graphiql.js';
import { registerStaticFiles } from './static-files.js';

const require = createRequire(import.meta.url);

/** The dashboard's folder (index.html, app.js, style.css, queries/*.graphql, screenshots/). */
export const DASHBOARD_DIR = new URL('../dashboard/', import.meta.url).pathname;

/** uPlot's dist folder and version, from the installed package. */
const UPLOT_DIR = path.dirname(require.resolve('uplot'));
const UPLOT_VERSION = (JSON.parse(fs.readFileSync(path.join(UPLOT_DIR, '..', 'package.json'), 'utf8')) as { version: string }).version;

/** Where uPlot is served (uPlot.esm.js, uPlot.min.css). */
export const UPLOT_ASSETS = `/assets/uplot/${UPLOT_VERSION}/`;

/** Media types of the dashboard's files that `send` would guess otherwise. */
const TYPES: ReadonlyMap<string, string> = new Map([
  ['.js', 'text/javascript; charset=utf-8'],
  ['.css', 'text/css; charset=utf-8'],
  ['.html', 'text/html; charset=utf-8'],
  ['.graphql', 'text/plain; charset=utf-8'],
  ['.png', 'image/png'],
]);

/** The links of the front door, as paths (the HTML page links `export_manifest` only once an export is published). */
export const FRONT_DOOR_LINKS = {
  api: '/api/v1/retailers',
  openapi: '/openapi.json',
  docs: '/docs',
  graphql: '/graphql',
  dashboard: '/dashboard',
  llms_txt: '/llms.txt',
  mcp: '/mcp',
  export_manifest: '/data/latest/manifest.json',
} as const;

/** The JSON index of `GET /` (links absolute, against `baseUrl`). */
export function serviceIndex(baseUrl: string) {
  return {
    name: 'NZ Grocery Prices API',
    description: API_SUMMARY,
    links: Object.fromEntries(Object.entries(FRONT_DOOR_LINKS).map(([k, v]) => [k, `${baseUrl}${v}`])) as Record<keyof typeof FRONT_DOOR_LINKS, string>,
  };
}

/** The quality (q) a media range list gives `type` (exact, then `major/*`, then `*\/*`); 0 when absent. */
function quality(accept: string, type: string): number {
  let best = -1;
  let score = 0;
  const [major] = type.split('/');
  for (const part of accept.split(',')) {
    const [range, ...params] = part.trim().toLowerCase().split(';');
    const specificity = range === type ? 3 : range === `${major}/*` ? 2 : range === '*/*' ? 1 : 0;
    if (!specificity || specificity < best) continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const value = q ? Number(q.slice(2)) : 1;
    if (specificity > best || value > score) score = Number.isFinite(value) ? value : 0;
    best = specificity;
  }
  return best < 0 ? 0 : score;
}

/** Whether the request prefers JSON to HTML (an explicit `application/json` ranked above `text/html`). */
export function prefersJson(req: FastifyRequest): boolean {
  const accept = String(req.headers.accept ?? '');
  if (!/application\/json/i.test(accept)) return false;
  return quality(accept, 'application/json') > quality(accept, 'text/html') || !/text\/html|\*\/\*|text\/\*/i.test(accept);
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * The landing page. `exportPublished`: whether an export is published (the manifest exists), so
 * the page links it; otherwise it says the first export has not run yet, with no link.
 */
export function landingPage({ exportPublished }: { exportPublished: boolean }): string {
  const paragraphs = (text: string) => text.split('\n').map((l) => `<p>${escapeHtml(l).replace(/`([^`]+)`/g, '<code>$1</code>')}</p>`).join('\n');
  const L = FRONT_DOOR_LINKS;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>NZ Grocery Prices API</title>
<link rel="stylesheet" href="/dashboard/style.css">
</head>
<body class="landing">
<header><h1>NZ Grocery Prices API</h1><p class="tag">Open price data for New Zealand supermarkets</p></header>
<main>
<section class="freshness panel" data-freshness data-state="loading" hidden aria-label="How old the data is"></section>
<section class="panel">
${paragraphs(API_SUMMARY)}
<p>No key, no sign-up: REST, GraphQL and MCP answer anyone, within a per-IP budget.</p>
</section>
<section class="panel">
<h2>Start here</h2>
<ul class="links">
<li><a href="${L.docs}">API reference</a> — every REST operation under <code>/api/v1</code>, rendered from <a href="${L.openapi}">the OpenAPI 3.1 document</a> (also <a href="/openapi.yaml">as YAML</a>).</li>
<li><a href="${L.graphql}">GraphiQL</a> — explore the GraphQL graph the REST operations are built on, and write your own queries.</li>
<li><a href="${L.dashboard}">Dashboard</a> — the food price index, an item's price history, store levels and current deals; each panel is one GraphQL query you can open in GraphiQL.</li>
<li><a href="${L.llms_txt}">llms.txt</a> — the API in Markdown for language models (<a href="/llms-full.txt">the complete reference</a>).</li>
<li><a href="${L.mcp}">MCP endpoint</a> — <code>POST ${L.mcp}</code>, for MCP clients: every operation is a read-only tool of the same name.</li>
${
  exportPublished
    ? `<li><a href="${L.export_manifest}">Latest export manifest</a> — the nightly bulk export (Parquet and gzipped CSV) for bulk work.</li>`
    : `<li data-export="none">Bulk export — the nightly export (Parquet and gzipped CSV) for bulk work: the first export has not run yet; its manifest will be at <code>${L.export_manifest}</code>.</li>`
}
<li><a href="${L.api}"><code>GET ${L.api}</code></a> — a first call: the chains.</li>
</ul>
</section>
<section class="panel small">
<p>${escapeHtml(API_CONVENTIONS.replace(/\n/g, ' ')).replace(/`([^`]+)`/g, '<code>$1</code>')}</p>
<p>JSON clients asking this page with <code>Accept: application/json</code> get these links as a JSON index.</p>
</section>
</main>
<script type="module">
import { followFreshness } from '/dashboard/freshness.js';
await followFreshness(document.querySelector('[data-freshness]'), undefined, { gaps: true });
document.body.dataset.ready = 'true';
</script>
</body>
</html>
`;
}

/** What {@link registerPages} needs. */
export interface PagesOptions {
  /** The generated descriptions (the OpenAPI document for /docs). */
  documents: MetaDocuments;
  /** Public base URL, no trailing slash (the JSON index's links). */
  baseUrl: string;
  /** EXPORT_DIR: the landing page links the export manifest only once `<exportDir>/latest` holds one. */
  exportDir: string;
}

/** Whether an export is published: `<exportDir>/latest/manifest.json` exists (one `stat`). */
export async function exportPublished(exportDir: string): Promise<boolean> {
  try {
    await fs.promises.access(path.join(latestExportDir(exportDir), MANIFEST_FILE));
    return true;
  } catch {
    return false;
  }
}

/** Registers `/`, `/docs`, `/dashboard` and the assets they load. */
export async function registerPages(app: FastifyInstance, { documents, baseUrl, exportDir }: PagesOptions): Promise<void> {
  const landing = { published: landingPage({ exportPublished: true }), none: landingPage({ exportPublished: false }) };
  const index = serviceIndex(baseUrl);
  app.get('/', async (req, reply) => {
    reply.header('vary', 'accept');
    if (prefersJson(req)) return reply.type('application/json; charset=utf-8').send(index);
    return reply.type('text/html; charset=utf-8').send((await exportPublished(exportDir)) ? landing.published : landing.none);
  });

  // The dashboard: /dashboard is its page; its files under /dashboard/.
  const dashboardHtml = fs.readFileSync(path.join(DASHBOARD_DIR, 'index.html'), 'utf8').replaceAll('__UPLOT__', UPLOT_ASSETS);
  app.get('/dashboard', async (_req, reply) => reply.type('text/html; charset=utf-8').send(dashboardHtml));
  await registerStaticFiles(app, {
    root: DASHBOARD_DIR,
    prefix: '/dashboard/',
    cacheControl: 'public, max-age=300',
    contentType: (file) => TYPES.get(path.extname(file)),
  });
  await registerStaticFiles(app, {
    root: UPLOT_DIR,
    prefix: UPLOT_ASSETS,
    cacheControl: IMMUTABLE,
    contentType: (file) => TYPES.get(path.extname(file)),
  });
  await registerGraphiqlAssets(app);

  // The API reference: Swagger UI over the generated document, its files from the package.
  await app.register(async (scope) => {
    // Swagger UI supports only OpenAPI 3.1's default schema dialect and warns about any other
    // `jsonSchemaDialect`, even the plain JSON Schema 2020-12 ours names: the page gets the document
    // without that field (the default dialect extends 2020-12); /openapi.json keeps it.
    const { jsonSchemaDialect: _dialect, ...document } = documents.openapi;
    await scope.register(fastifySwagger, { mode: 'static', specification: { document: document as never } });
    await scope.register(fastifySwaggerUi, {
      routePrefix: '/docs',
      uiConfig: { validatorUrl: null, deepLinking: true, docExpansion: 'list', defaultModelsExpandDepth: 0, tryItOutEnabled: false },
      // No top bar (Fastify's logo and a URL box): the page is this API's reference only.
      theme: { title: 'NZ Grocery Prices API reference', css: [{ filename: 'theme.css', content: '.swagger-ui .topbar { display: none; }' }] },
    });
  });
}
