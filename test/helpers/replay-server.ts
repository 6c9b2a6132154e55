/**
 * A local HTTP server that replays recorded retailer responses (issue 18 item 5), for the
 * collectors' tests and benchmarks: the collectors run their live code path against it, only the
 * origin differs.
 *
 * A route table, tried in order: the first route whose method, path, query (every listed parameter
 * equal; others ignored), request-header substrings and body substring match, and whose `times` is
 * not used up, answers. An answer is a fixture file (or a body), a status, headers and an optional
 * delay (longer than the client's timeout to simulate one). `times` lets a route answer only its
 * first N matching requests (a 429 then the page). Unmatched requests get 404 and are recorded in
 * `unmatched`. Every request is recorded in `requests`.
 *
 * Images: an answer `{ image: {...} }` is a small picture generated with sharp for the request's
 * path (its colour derived from the path, so different paths give different bytes), standing in
 * for a retailer's CDN image (the collectors' image URLs are absolute CDN URLs; the images worker
 * is pointed at the replay server with an image-origin override). A route's `path` may be a RegExp.
 * A server-wide `delayMs` (option, or `setDelay`) slows every answer down (tests that kill a run mid-way).
 */
import crypto from 'node:crypto';
import sharp from 'sharp';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

/** One route of the table. */
export interface ReplayRoute {
  /** Default GET. */
  method?: string;
  /** Path without the query, e.g. `/api/v1/products`, or a RegExp the path must match. */
  path: string | RegExp;
  /** Query parameters that must be present with these values (decoded). */
  query?: Readonly<Record<string, string>>;
  /** Request headers (lower-case names) that must contain these substrings, e.g. `{ cookie: 'f-9584' }`. */
  headers?: Readonly<Record<string, string>>;
  /** A substring the request body must contain. */
  body?: string;
  /** Answer only the first N matching requests, then fall through to later routes. */
  times?: number;
  /** The answer. */
  respond: ReplayResponse;
}

/** What a route answers. */
export interface ReplayResponse {
  /** Default 200. */
  status?: number;
  headers?: Readonly<Record<string, string | string[]>>;
  /** A fixture file (relative to the server's `dir`), sent as is. */
  file?: string;
  /** A body: a string as is, anything else as JSON. */
  body?: unknown;
  /** Wait this long before answering, ms. */
  delayMs?: number;
  /** A generated image for the request's path (format by the path's extension unless given; default png). */
  image?: { width?: number; height?: number; format?: 'png' | 'jpeg' | 'webp' };
}

/** Options of a replay server. */
export interface ReplayOptions {
  /** Added before every answer, ms (default 0). */
  delayMs?: number;
}

/** A request the server received. */
export interface ReplayRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** Index of the route that answered, or -1. */
  route: number;
}

/** A running replay server. */
export interface ReplayServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  requests: ReplayRequest[];
  unmatched: ReplayRequest[];
  /** Replaces the route table (use counts start again). */
  setRoutes(routes: readonly ReplayRoute[]): void;
  /** Sets the delay added before every answer, ms. */
  setDelay(ms: number): void;
  close(): Promise<void>;
}

const json = 'application/json; charset=utf-8';

/** A small image for `key` (colour from its hash), encoded as `format`. */
async function generatedImage(key: string, spec: NonNullable<ReplayResponse['image']>): Promise<{ data: Buffer; type: string }> {
  const h = crypto.createHash('sha256').update(key).digest();
  const ext = /\.(png|jpe?g|webp)$/i.exec(key)?.[1].toLowerCase();
  const format = spec.format ?? (ext === 'jpg' || ext === 'jpeg' ? 'jpeg' : ext === 'webp' ? 'webp' : 'png');
  const img = sharp({ create: { width: spec.width ?? 48, height: spec.height ?? 48, channels: 3, background: { r: h[0], g: h[1], b: h[2] } } });
  const data = await (format === 'jpeg' ? img.jpeg() : format === 'webp' ? img.webp() : img.png()).toBuffer();
  return { data, type: `image/${format}` };
}

/** Starts a replay server on 127.0.0.1 (a free port) serving `routes`, files read from `dir`. */
export async function startReplayServer(routes: readonly ReplayRoute[], dir = '.', options: ReplayOptions = {}): Promise<ReplayServer> {
  let delay = options.delayMs ?? 0;
  const images = new Map<string, { data: Buffer; type: string }>();
  let table = [...routes];
  let used = table.map(() => 0);
  const files = new Map<string, Buffer>();
  const requests: ReplayRequest[] = [];
  const unmatched: ReplayRequest[] = [];
  const sockets = new Set<import('node:net').Socket>();

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://replay');
      const seen: ReplayRequest = {
        method: req.method ?? 'GET', path: url.pathname, query: Object.fromEntries(url.searchParams), headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'), route: -1,
      };
      requests.push(seen);
      const i = table.findIndex((r, idx) =>
        (r.method ?? 'GET') === seen.method && (typeof r.path === 'string' ? r.path === seen.path : r.path.test(seen.path))
        && Object.entries(r.query ?? {}).every(([k, v]) => seen.query[k] === v)
        && Object.entries(r.headers ?? {}).every(([k, v]) => String(req.headers[k] ?? '').includes(v))
        && (r.body === undefined || seen.body.includes(r.body))
        && (r.times === undefined || used[idx] < r.times));
      if (i < 0) {
        unmatched.push(seen);
        res.writeHead(404, { 'content-type': json }).end(JSON.stringify({ message: `no replay route for ${seen.method} ${req.url}` }));
        return;
      }
      used[i] += 1;
      seen.route = i;
      const a = table[i].respond;
      let payload: Buffer;
      if (a.image !== undefined) {
        const spec = a.image;
        const key = seen.path;
        const cached = images.get(key);
        const answer = (img: { data: Buffer; type: string }) => {
          images.set(key, img);
          const sendImage = () => {
            if (res.destroyed) return;
            res.writeHead(a.status ?? 200, { 'content-type': img.type, 'content-length': img.data.length, ...a.headers });
            res.end(img.data);
          };
          const wait = (a.delayMs ?? 0) + delay;
          if (wait) setTimeout(sendImage, wait).unref();
          else sendImage();
        };
        if (cached) answer(cached);
        else generatedImage(key, spec).then(answer, (e: Error) => res.writeHead(500).end(e.message));
        return;
      }
      if (a.file !== undefined) {
        const f = path.resolve(dir, a.file);
        payload = files.get(f) ?? fs.readFileSync(f);
        files.set(f, payload);
      } else {
        payload = Buffer.from(a.body === undefined ? '' : typeof a.body === 'string' ? a.body : JSON.stringify(a.body));
      }
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(a.status ?? 200, { 'content-type': json, 'content-length': payload.length, ...a.headers });
        res.end(payload);
      };
      const wait = (a.delayMs ?? 0) + delay;
      if (wait) setTimeout(send, wait).unref();
      else send();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    unmatched,
    setRoutes(r) {
      table = [...r];
      used = table.map(() => 0);
    },
    setDelay(ms) {
      delay = ms;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
