/**
 * Read-only files served from a folder with @fastify/static, the one way this server serves files
 * (export files under /data/latest/, product images under /images/): HTTP ranges, ETag and
 * Last-Modified revalidation, no directory listing or index, dot-files refused, a missing folder
 * answered 404 (and not warned about when a job creates it on demand), and a
 * `Cache-Control` of the caller's choosing on successful responses (set in an onSend hook of the
 * plugin's own scope, which runs after the server-wide one that sets the five-minute rule, so it
 * wins here). Errors keep the server-wide rule.
 */
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** How one folder is served. */
export interface StaticFilesOptions {
  /** Folder on disk (a missing folder answers 404 until it exists). */
  root: string;
  /**
   * The folder is made later by a job (the first export, the first image conversion), so its
   * absence is the normal state of a fresh instance: no start-up warning. Otherwise (the folders
   * shipped with the code) @fastify/static warns that a missing root "must exist".
   */
  createdOnDemand?: boolean;
  /** URL prefix, with its trailing slash, e.g. `/images/`. */
  prefix: string;
  /** `Cache-Control` of a successful response. */
  cacheControl: string;
  /** Media type of a served file (by its path on disk), or undefined to keep what `send` chose. */
  contentType(filePath: string): string | undefined;
  /** Optional check before the disk is touched (e.g. answer 404 for a malformed path). */
  onRequest?(req: FastifyRequest, reply: FastifyReply): Promise<unknown>;
}

/** Registers `opts.prefix`* over `opts.root` in its own plugin scope. */
export async function registerStaticFiles(app: FastifyInstance, opts: StaticFilesOptions): Promise<void> {
  await app.register(async (scope) => {
    if (opts.onRequest) scope.addHook('onRequest', opts.onRequest);
    scope.addHook('onSend', async (_req, reply, payload) => {
      if (reply.statusCode < 400) reply.header('cache-control', opts.cacheControl);
      return payload;
    });
    await scope.register(fastifyStatic, {
      root: opts.root,
      suppressWarning: opts.createdOnDemand === true,
      prefix: opts.prefix,
      decorateReply: false,
      index: false,
      list: false,
      dotfiles: 'deny',
      cacheControl: false,
      etag: true,
      lastModified: true,
      acceptRanges: true,
      setHeaders: (reply, filePath) => {
        const type = opts.contentType(filePath);
        if (type) reply.header('content-type', type);
      },
    });
  });
}
