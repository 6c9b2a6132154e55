/**
 * The curl examples of docs/http.md work (issue 28 #4: a newcomer found no curl or MCP example, and
 * MCP over curl answered `Not Acceptable` or `missing … _meta`). Every ```sh block starting with
 * `curl` is parsed here (URL, method, headers, body: the shell quoting and the curl options the
 * examples use) and sent to a test server (the assembled server over a fresh database) with the
 * examples' origin http://localhost:8080 replaced by the server's; each must answer 2xx with a JSON
 * body that is no error (no REST `error`, no JSON-RPC `error`, no GraphQL `errors`). The page must
 * keep an example of REST, GraphQL and MCP in both protocol eras. When curl itself is installed,
 * each block is also run by the shell as written.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../facades/server.js';
import { loadEnv, ROOT_DIR } from '../../src/env.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

const DOC = path.join(ROOT_DIR, 'docs/http.md');
const ORIGIN = 'http://localhost:8080';
const CURL = ['/usr/bin/curl', '/usr/local/bin/curl', '/bin/curl'].find((p) => fs.existsSync(p));

/** The ```sh blocks of docs/http.md that are a curl command. */
const BLOCKS = [...fs.readFileSync(DOC, 'utf8').matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1].trim()).filter((b) => b.startsWith('curl '));

/** What a curl command sends. */
interface CurlRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/**
 * Splits a POSIX shell command into words: backslash-newline continuations, single quotes
 * (literal), double quotes (with `\"` and `\\`), backslash escapes. Anything that would make the
 * shell do more than run one command ($, backticks, ;, |, &, <, >) is refused, so an example
 * cannot mean something else in a terminal than here.
 */
function shellWords(command: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  const text = command.replace(/\\\n/g, ' ');
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unterminated single quote in: ${command}`);
      word = (word ?? '') + text.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      let s = '';
      for (i++; i < text.length && text[i] !== '"'; i++) {
        if ('$`'.includes(text[i])) throw new Error(`shell expansion in double quotes in: ${command}`);
        s += text[i] === '\\' && '"\\'.includes(text[i + 1]) ? text[++i] : text[i];
      }
      if (i >= text.length) throw new Error(`unterminated double quote in: ${command}`);
      word = (word ?? '') + s;
    } else if (c === '\\') {
      word = (word ?? '') + text[++i];
    } else if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
    } else if ('$`;|&<>*?[]'.includes(c)) {
      throw new Error(`"${c}" outside quotes in: ${command}`);
    } else {
      word = (word ?? '') + c;
    }
  }
  if (word !== null) words.push(word);
  return words;
}

/** The request a curl command line sends (the options the examples use; any other is refused). */
function parseCurl(command: string): CurlRequest {
  const [program, ...args] = shellWords(command);
  if (program !== 'curl') throw new Error(`not a curl command: ${command}`);
  let method: string | undefined;
  let url: string | undefined;
  let body: string | undefined;
  const headers: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const value = () => {
      const v = args[++i];
      if (v === undefined) throw new Error(`${a} needs a value in: ${command}`);
      return v;
    };
    if (a === '-X' || a === '--request') method = value();
    else if (a === '-H' || a === '--header') {
      const h = value();
      const colon = h.indexOf(':');
      if (colon <= 0) throw new Error(`malformed header "${h}" in: ${command}`);
      headers[h.slice(0, colon).trim().toLowerCase()] = h.slice(colon + 1).trim();
    } else if (a === '-d' || a === '--data' || a === '--data-raw') body = value();
    else if (a === '-s' || a === '--silent' || a === '-sS' || a === '-S') continue;
    else if (a.startsWith('-')) throw new Error(`curl option ${a} is not understood by this test: ${command}`);
    else if (url === undefined) url = a;
    else throw new Error(`a second URL "${a}" in: ${command}`);
  }
  if (url === undefined) throw new Error(`no URL in: ${command}`);
  // curl: -d makes a POST, with a form content type unless one is given.
  if (body !== undefined) headers['content-type'] ??= 'application/x-www-form-urlencoded';
  return { method: method ?? (body === undefined ? 'GET' : 'POST'), url, headers, body };
}

/** Checks an answer: 2xx, JSON, and no error of any of the three APIs. */
function expectWorked(example: string, status: number, contentType: string | null, text: string): void {
  const what = `${example}\n→ ${status} ${text.slice(0, 500)}`;
  expect(status, what).toBeGreaterThanOrEqual(200);
  expect(status, what).toBeLessThan(300);
  expect(contentType ?? '', what).toMatch(/^application\/json/);
  const body = JSON.parse(text) as unknown;
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
    expect(Object.keys(body), what).not.toContain('error'); // REST Error body, JSON-RPC error
    expect(Object.keys(body), what).not.toContain('errors'); // GraphQL
    if ('jsonrpc' in body) expect(Object.keys(body), what).toContain('result');
  }
}

/** A test title for an example: method, path, and the JSON-RPC method and MCP revision when there are. */
function title(block: string): string {
  const r = parseCurl(block);
  const rpc = r.body ? /"method":"([^"]+)"/.exec(r.body)?.[1] : undefined;
  const revision = r.headers['mcp-protocol-version'] ?? (rpc === 'initialize' ? /"protocolVersion":"([^"]+)"/.exec(r.body ?? '')?.[1] : undefined);
  return [r.method, new URL(r.url).pathname + new URL(r.url).search, rpc, revision].filter(Boolean).join(' ');
}

let db: TestDatabase;
let app: FastifyInstance;
let base: string;

beforeAll(async () => {
  db = await createTestDatabase('docs_examples');
  app = await createServer({ db, env: loadEnv({ LOG_LEVEL: 'silent', NODE_ENV: 'test' }) });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  base = `http://127.0.0.1:${address.port}`;
}, 120_000);

afterAll(async () => {
  await app?.close();
  await db?.drop();
});

describe('docs/http.md curl examples', () => {
  it('has examples of REST, GraphQL and MCP in both protocol eras, all against http://localhost:8080', () => {
    const requests = BLOCKS.map(parseCurl);
    for (const r of requests) expect(r.url.startsWith(`${ORIGIN}/`), r.url).toBe(true);
    const paths = requests.map((r) => new URL(r.url).pathname);
    expect(paths.some((p) => p.startsWith('/api/v1/')), 'a REST example').toBe(true);
    expect(paths, 'a GraphQL example').toContain('/graphql');
    const mcp = requests.filter((r) => new URL(r.url).pathname === '/mcp');
    expect(mcp.some((r) => r.headers['mcp-protocol-version'] === '2026-07-28' && r.body?.includes('"_meta"')), 'a 2026-07-28 MCP example').toBe(true);
    expect(mcp.some((r) => r.body?.includes('"method":"initialize"')), 'a 2025-era initialize').toBe(true);
    expect(mcp.some((r) => r.headers['mcp-protocol-version']?.startsWith('2025-') && r.body?.includes('"method":"tools/call"')), 'a 2025-era tool call').toBe(true);
  });

  it('parses shell quoting and curl options as a shell and curl would', () => {
    expect(shellWords(`curl 'http://x/a?q=1' \\\n  -H "A: \\"b\\"" -d '{"k":"v w"}'`)).toEqual(['curl', 'http://x/a?q=1', '-H', 'A: "b"', '-d', '{"k":"v w"}']);
    expect(() => shellWords('curl http://x/a?q=1')).toThrow(/outside quotes/);
    expect(parseCurl(`curl http://x/y -d '{}'`)).toEqual({ method: 'POST', url: 'http://x/y', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '{}' });
    expect(() => parseCurl('curl -k http://x/y')).toThrow(/not understood/);
  });

  it.each(BLOCKS.map((b) => [title(b), b]))('%s answers 2xx with a JSON body', async (_title, block) => {
    const r = parseCurl(block);
    const response = await fetch(r.url.replace(ORIGIN, base), { method: r.method, headers: r.headers, body: r.body });
    expectWorked(block, response.status, response.headers.get('content-type'), await response.text());
  });

  it.runIf(CURL !== undefined).each(BLOCKS.map((b) => [title(b), b]))('%s, run by the shell with curl, answers 2xx with a JSON body', async (_title, block) => {
    // As written, against the test server; -sS -w appends the status on a line of its own and
    // -D - prints the response headers before the body.
    const command = `${block.replaceAll(ORIGIN, base)} -sS -D - -w '\\n%{http_code}'`;
    const { stdout } = await promisify(execFile)('sh', ['-c', command], { env: { ...process.env, PATH: `${path.dirname(CURL!)}:${process.env.PATH ?? ''}` } });
    const [head, ...rest] = stdout.split(/\r\n\r\n/);
    const lines = rest.join('\r\n\r\n').split('\n');
    const status = Number(lines.pop());
    const contentType = /^content-type:\s*(.+)$/im.exec(head)?.[1]?.trim() ?? null;
    expectWorked(block, status, contentType, lines.join('\n'));
  });
});
