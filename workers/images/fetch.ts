/**
 * Downloading one source image (workers/images): undici with an identifying User-Agent, a whole-
 * download timeout, a size cap checked against Content-Length and again while the body streams
 * (a lying or absent length cannot exceed it), and up to three redirects. Every failure is an
 * {@link ImageError} saying whether it is worth retrying soon (timeouts, network errors, 408, 429
 * and 5xx) or not (other statuses, too large, not an image).
 */
import { Agent, interceptors, request, type Dispatcher } from 'undici';
import { ExpectedError } from '../../src/errors.js';

/** What went wrong with one image. */
export type ImageErrorKind = 'url' | 'http' | 'timeout' | 'network' | 'too-large' | 'not-image';

/** A failed image: logged, recorded in the `image` table and retried later, never thrown out of a run. */
export class ImageError extends ExpectedError {
  constructor(
    readonly kind: ImageErrorKind,
    message: string,
    /** Whether the cause is likely to pass (a timeout, a 503): retried sooner (workers/images retryDays). */
    readonly transient: boolean,
  ) {
    super(message);
    this.name = 'ImageError';
  }
}

/**
 * The User-Agent of image downloads: names the service and what it does; {@link imageUserAgent}
 * adds the service's public address.
 */
export const IMAGE_USER_AGENT = 'nz-grocery-prices-images/0.1 (product images for a free public NZ grocery price API)';

/** {@link IMAGE_USER_AGENT} with `+<publicUrl>` (where a site owner can read about the service). */
export function imageUserAgent(publicUrl: string): string {
  return IMAGE_USER_AGENT.replace(/\)$/, `; +${publicUrl})`);
}

/** How to download. */
export interface DownloadOptions {
  /** Longest time for the whole download, headers and body (ms). */
  timeoutMs: number;
  /** Largest body accepted, in bytes. */
  maxBytes: number;
  /** User-Agent header. */
  userAgent: string;
  /** undici dispatcher (a redirect-following Agent from {@link createImageAgent}). */
  dispatcher: Dispatcher;
}

/**
 * An undici Agent for image downloads: at most `connections` sockets per origin, header and body
 * timeouts of `timeoutMs`, following up to three redirects. Close it when the run ends.
 */
export function createImageAgent(connections: number, timeoutMs: number): Dispatcher {
  return new Agent({ connections, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, connectTimeout: timeoutMs }).compose(
    interceptors.redirect({ maxRedirections: 3 }),
  );
}

/** Whether an HTTP status is worth retrying soon. */
function transientStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/**
 * Downloads `url` whole into memory.
 * @throws ImageError for a URL that is not http(s), a non-2xx status, a body over `maxBytes`, a
 *   timeout or a network error.
 */
export async function downloadImage(url: string, opts: DownloadOptions): Promise<Buffer> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ImageError('url', 'not an absolute URL', false);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new ImageError('url', `unsupported scheme ${parsed.protocol}`, false);
  const signal = AbortSignal.timeout(opts.timeoutMs);
  const timedOut = () => new ImageError('timeout', `no complete response within ${opts.timeoutMs} ms`, true);
  let res: Dispatcher.ResponseData;
  try {
    res = await request(parsed, {
      dispatcher: opts.dispatcher,
      signal,
      headers: { 'user-agent': opts.userAgent, accept: 'image/avif,image/webp,image/png,image/jpeg,image/*;q=0.8,*/*;q=0.1' },
    });
  } catch (e) {
    if (signal.aborted || isTimeout(e)) throw timedOut();
    throw new ImageError('network', describe(e), true);
  }
  const type = String(res.headers['content-type'] ?? '');
  if (res.statusCode < 200 || res.statusCode >= 300) {
    discard(res.body);
    throw new ImageError('http', `HTTP ${res.statusCode}`, transientStatus(res.statusCode));
  }
  const declared = Number(res.headers['content-length']);
  if (Number.isFinite(declared) && declared > opts.maxBytes) {
    discard(res.body);
    throw new ImageError('too-large', `Content-Length ${declared} bytes is over the ${opts.maxBytes}-byte cap`, false);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of res.body) {
      size += (chunk as Buffer).length;
      if (size > opts.maxBytes) {
        discard(res.body);
        throw new ImageError('too-large', `body over the ${opts.maxBytes}-byte cap`, false);
      }
      chunks.push(chunk as Buffer);
    }
  } catch (e) {
    if (e instanceof ImageError) throw e;
    if (signal.aborted || isTimeout(e)) throw timedOut();
    throw new ImageError('network', describe(e), true);
  }
  if (size === 0) throw new ImageError('not-image', `empty body${type ? ` (${type})` : ''}`, false);
  return Buffer.concat(chunks, size);
}

/** Stops reading a body (the connection is dropped); its abort error is expected, not reported. */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => {});
  body.destroy();
}

function isTimeout(e: unknown): boolean {
  const code = (e as { code?: string })?.code ?? '';
  const name = (e as { name?: string })?.name ?? '';
  return name === 'AbortError' || name === 'TimeoutError' || /TIMEOUT/.test(code);
}

function describe(e: unknown): string {
  const err = e as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  return [err.code ?? err.cause?.code, err.message ?? String(e)].filter(Boolean).join(': ');
}
