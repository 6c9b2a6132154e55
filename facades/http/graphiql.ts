/**
 * GraphiQL without a CDN (issue 20 #4). Yoga's default GraphiQL page loads its script and styles
 * from a public CDN (unpkg); with no route there a browser shows only "Loading __TITLE__...". The
 * same GraphiQL (Yoga's build of it: GraphiQL, the explorer plugin, Monaco and its workers, fonts
 * and icons as data URLs) is bundled by `@graphql-yoga/render-graphiql`, published with graphql-yoga
 * at the same version. That package's own `renderGraphiQL` inlines the whole ~9 MB bundle into every
 * page; here the page is small and names the bundle's parts as separate, versioned, immutable
 * assets under {@link GRAPHIQL_ASSETS}, each read from the installed package on first use and kept
 * (with a gzip copy) in memory:
 *
 * - `graphiql.js`   GraphiQL itself (`YogaGraphiQL.renderYogaGraphiQL`);
 * - `graphiql.css`  its styles (fonts inlined);
 * - `editor.worker.js`, `json.worker.js`, `graphql.worker.js`  Monaco's web workers (same origin);
 * - `favicon.ico`.
 *
 * A prefilled query: Yoga's GraphiQL opens `?query=<document>` (and `variables`) from the page's
 * URL, so `/graphql?query=...` in a browser (Accept: text/html) shows that query ready to run; the
 * dashboard's "open in GraphiQL" links are such URLs ({@link graphiqlUrl}).
 */
import { createRequire } from 'node:module';
import zlib from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import type { GraphiQLOptions } from 'graphql-yoga';

const require = createRequire(import.meta.url);

/** The installed @graphql-yoga/render-graphiql version (it is published with graphql-yoga, same number). */
export const GRAPHIQL_VERSION: string = (require('@graphql-yoga/render-graphiql/package.json') as { version: string }).version;

/** Where the GraphiQL assets are served; versioned, so they can be cached for a year. */
export const GRAPHIQL_ASSETS = `/assets/graphiql/${GRAPHIQL_VERSION}/`;

/** Cache lifetime of versioned assets: a year, never revalidated (a new version is a new URL). */
export const IMMUTABLE = 'public, max-age=31536000, immutable';

/** The parts of the bundle, as @graphql-yoga/render-graphiql exports them. */
interface Bundle {
  js: string;
  css: string;
  favicon: string;
  editorWorkerService: string;
  jsonWorker: string;
  graphqlWorker: string;
}

/** One served asset: its bytes, a gzip copy and its media type. */
interface Asset {
  type: string;
  body: Buffer;
  gzip: Buffer;
}

let loading: Promise<Map<string, Asset>> | undefined;

/** Reads the bundle once (on the first request of a page or an asset) and prepares every asset. */
function assets(): Promise<Map<string, Asset>> {
  loading ??= (async () => {
    const bundle = (await import('@graphql-yoga/render-graphiql/graphiql')) as unknown as Bundle;
    const text = (type: string, s: string): Asset => {
      const body = Buffer.from(s);
      return { type, body, gzip: zlib.gzipSync(body, { level: 6 }) };
    };
    const icon = Buffer.from(bundle.favicon.replace(/^data:[^,]*;base64,/, ''), 'base64');
    const js = 'application/javascript; charset=utf-8';
    return new Map<string, Asset>([
      ['graphiql.js', text(js, bundle.js)],
      ['graphiql.css', text('text/css; charset=utf-8', bundle.css)],
      ['editor.worker.js', text(js, bundle.editorWorkerService)],
      ['json.worker.js', text(js, bundle.jsonWorker)],
      ['graphql.worker.js', text(js, bundle.graphqlWorker)],
      ['favicon.ico', { type: 'image/x-icon', body: icon, gzip: zlib.gzipSync(icon) }],
    ]);
  })();
  return loading;
}

/** Escapes `s` for an HTML text node or attribute value. */
function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Yoga's `renderGraphiQL`: the GraphiQL page, small, loading the bundle from {@link GRAPHIQL_ASSETS}.
 * `opts` are Yoga's GraphiQL options (title, defaultQuery, …), passed to GraphiQL as Yoga's own
 * page does. (Yoga's GraphiQL itself reads `?query=` from the page URL.)
 */
export function renderGraphiQLPage(opts: GraphiQLOptions = {}): string {
  const title = escapeHtml(opts.title || 'GraphiQL');
  // JSON inside a <script>: `<` escaped so no string can close the element.
  const options = JSON.stringify(opts).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="icon" href="${GRAPHIQL_ASSETS}favicon.ico">
<link rel="stylesheet" href="${GRAPHIQL_ASSETS}graphiql.css">
</head>
<body id="body" class="no-focus-outline">
<noscript>GraphiQL needs JavaScript. Without it, send queries to this URL with GET or POST (application/json).</noscript>
<div id="root"></div>
<script>
self.MonacoEnvironment = {
  globalAPI: false,
  getWorkerUrl: function (moduleId, label) {
    return ${JSON.stringify(GRAPHIQL_ASSETS)} + ({ json: 'json.worker.js', graphql: 'graphql.worker.js' }[label] || 'editor.worker.js');
  },
};
</script>
<script src="${GRAPHIQL_ASSETS}graphiql.js"></script>
<script>YogaGraphiQL.renderYogaGraphiQL(document.querySelector('#root'), ${options});</script>
</body>
</html>
`;
}

/** `/graphql?query=<document>`: GraphiQL in a browser with `query` prefilled. */
export function graphiqlUrl(query: string, variables?: Record<string, unknown>): string {
  const params = new URLSearchParams({ query });
  if (variables && Object.keys(variables).length) params.set('variables', JSON.stringify(variables));
  return `/graphql?${params.toString()}`;
}

/** Registers GET {@link GRAPHIQL_ASSETS}<name> (gzip when accepted; a year's immutable caching). */
export async function registerGraphiqlAssets(app: FastifyInstance): Promise<void> {
  await app.register(async (scope) => {
    // After the server-wide onSend (five minutes), so the versioned assets keep their year.
    scope.addHook('onSend', async (_req, reply, payload) => {
      if (reply.statusCode < 400) reply.header('cache-control', IMMUTABLE);
      return payload;
    });
    scope.get<{ Params: { name: string } }>(`${GRAPHIQL_ASSETS}:name`, async (req, reply) => {
      const asset = (await assets()).get(req.params.name);
      if (!asset) return reply.callNotFound();
      reply.header('vary', 'accept-encoding').type(asset.type);
      if (/\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) return reply.header('content-encoding', 'gzip').send(asset.gzip);
      return reply.send(asset.body);
    });
  });
}
