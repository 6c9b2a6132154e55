/**
 * Fuzz and fault suite (issue 13) through the assembled server against a real PostgreSQL holding
 * real prices (test/helpers/prices.ts). Every parameter is derived, never listed by hand:
 *
 * - REST: every operation of the registry (facades/operations.ts), each path parameter and each
 *   query parameter of its zod `params` (paramInfo), with hostile values percent-encoded (as a
 *   client would) and raw (as a hostile one would; app.inject takes raw URLs), repeated and unknown
 *   parameters, and other methods; plus a sample over a real loopback socket, where the bytes are
 *   not normalised by any URL parser on the way in.
 * - GraphQL: every Query field of schema/schema.graphql and each of its arguments, with hostile
 *   literals and hostile variables, plus malformed documents and malformed request envelopes.
 * - MCP: `tools/list`, then `tools/call` of every listed tool with hostile values for every
 *   property of its input schema (2026-07-28 and 2025-era requests), plus malformed JSON-RPC.
 * - Issue 29's probe: Object.prototype's words in every text value (HOSTILE_STRINGS), variables
 *   and extensions nested thousands deep, malformed persisted-query extensions, every method
 *   Node's parser takes (TRACE, PROPFIND…), unmet `Expect` values and long or numerous headers on
 *   a real socket.
 *
 * The rule for every response is in test/helpers/fuzz.ts (never 5xx; the contract's Error body on
 * HTTP 4xx; well-formed GraphQL and JSON-RPC answers; no stack trace; an answer within the time
 * bound). Problems are collected per surface and asserted at the end of each test, so one run names
 * every defect. The database is never stopped here, so no 503 is allowed either. Values generated
 * at random come from a fixed seed (FUZZ_SEED).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { buildSchema, getNamedType, isEnumType, isLeafType, isNonNullType, type GraphQLArgument, type GraphQLField } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paramInfo, type AnyOperation } from '../../facades/operation.js';
import { operations } from '../../facades/operations.js';
import { OTHER_METHODS } from '../../facades/rest/methods.js';
import { createServer } from '../../facades/server.js';
import { loadEnv, ROOT_DIR } from '../../src/env.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import {
  bounded, clip, FUZZ_SEED, graphqlProblems, HOSTILE_JSON, HOSTILE_STRINGS, mcpProblems, NUMERIC_STRINGS, randomStrings,
  restProblems, type Hostile, type Seen,
} from '../helpers/fuzz.js';
import { seedRealPrices, type Seeded } from '../helpers/prices.js';

type Surface = 'rest' | 'socket' | 'graphql' | 'mcp';

const exportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nzgp-fuzz-exports-'));
const env = loadEnv({ LOG_LEVEL: 'silent', NODE_ENV: 'test', EXPORT_DIR: exportDir });
/** Longest any one answer may take before it counts as a hang. */
const HANG_MS = 15_000;
/** Requests in flight at once (2 cores; the database does the heavy part). */
const WIDTH = 6;

let db: TestDatabase;
let seed: Seeded;
let app: FastifyInstance;
let gtin: string;

const counts: Record<Surface, number> = { rest: 0, socket: 0, graphql: 0, mcp: 0 };
const problems: Record<Surface, string[]> = { rest: [], socket: [], graphql: [], mcp: [] };
/** Answers by status class per surface (`2xx`, `4xx`…), for the summary. */
const classes: Record<Surface, Record<string, number>> = { rest: {}, socket: {}, graphql: {}, mcp: {} };
const tally = (surface: Surface, status: number) => {
  const c = `${String(status)[0]}xx`;
  classes[surface][c] = (classes[surface][c] ?? 0) + 1;
};
/** Requests app.inject itself refused to build (not sent, so not a server answer). */
const unsent: Record<Surface, string[]> = { rest: [], socket: [], graphql: [], mcp: [] };

/** Every value a text or integer parameter is fuzzed with (strings). */
const TEXT_VALUES: readonly Hostile<string>[] = [
  ...HOSTILE_STRINGS,
  ...NUMERIC_STRINGS,
  ...randomStrings(FUZZ_SEED, 12).map((value, i) => ({ label: `random #${i}`, value })),
];

/**
 * Percent-encodes `s` as a client would (UTF-8), except that a lone surrogate is written as its
 * WTF-8 bytes (%ED%A0%80), which no well-behaved encoder produces (encodeURIComponent throws).
 */
function percentEncode(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const pair = c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && s.charCodeAt(i + 1) >= 0xdc00 && s.charCodeAt(i + 1) <= 0xdfff;
    if (pair) {
      out += encodeURIComponent(s.slice(i, i + 2));
      i++;
    } else if (c >= 0xd800 && c <= 0xdfff) {
      out += [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
    } else out += encodeURIComponent(s[i]);
  }
  return out;
}

let nextAddress = 0;
/** A fresh client address per GraphQL request, so the per-field limits never answer in place of the fuzzed code. */
function freshAddress(): string {
  const n = ++nextAddress;
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
}

function describeRequest(o: InjectOptions): string {
  const payload = o.payload === undefined ? '' : ` ${clip(Buffer.isBuffer(o.payload) ? o.payload.toString('latin1') : String(o.payload), 400)}`;
  const headers = o.headers && Object.keys(o.headers).length ? ` headers ${clip(JSON.stringify(o.headers), 300)}` : '';
  return `${o.method ?? 'GET'} ${clip(String(o.url), 300)}${headers}${payload}`;
}

function timeout(ms: number): Promise<never> {
  return new Promise((_, reject) => {
    const t = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    t.unref();
  });
}

/** Sends one request through app.inject and records every problem `check` finds in its answer. */
async function fire(surface: Surface, options: InjectOptions, check: (seen: Seen) => string[]): Promise<void> {
  counts[surface]++;
  let response;
  try {
    response = await Promise.race([app.inject(options), timeout(HANG_MS)]);
  } catch (e) {
    const message = (e as Error).message;
    if (message.startsWith('no answer within')) problems[surface].push(`${describeRequest(options)} → hang: ${message}`);
    else unsent[surface].push(`${describeRequest(options)}: ${message}`);
    return;
  }
  tally(surface, response.statusCode);
  const seen: Seen = { status: response.statusCode, headers: response.headers, body: response.body };
  for (const p of check(seen)) problems[surface].push(`${describeRequest(options)} → ${p}`);
}

/** HEAD answers have no body: only the status is checked. */
const headProblems = (seen: Seen) => (seen.status >= 500 ? [`HTTP ${seen.status}`] : []);

function expectNoProblems(surface: Surface): void {
  const found = problems[surface];
  expect(found, `${found.length} problem(s) on ${surface}:\n${found.slice(0, 60).join('\n')}`).toEqual([]);
}

beforeAll(async () => {
  db = await createTestDatabase('fuzz');
  seed = await seedRealPrices(db.pool);
  const { rows } = await db.pool.query<{ gtin: string }>('SELECT gtin::text AS gtin FROM listing WHERE gtin IS NOT NULL ORDER BY id LIMIT 1');
  gtin = rows[0]?.gtin ?? '9400000000000';
  // The chains' category trees (browse_retailer), so its q and c reach the database.
  const { buildRetailerCategories } = await import('../../workers/views/categories.js');
  const { inTransaction } = await import('../../src/db/transaction.js');
  await inTransaction(db.pool, (client) => buildRetailerCategories(client));
  app = await createServer({
    db,
    env,
    rateLimit: { perMinute: 1_000_000_000, perDay: 1_000_000_000, keyPrefix: `fuzz-${crypto.randomBytes(4).toString('hex')}` },
  });
});

afterAll(async () => {
  const total = counts.rest + counts.socket + counts.graphql + counts.mcp;
  const skipped = unsent.rest.length + unsent.socket.length + unsent.graphql.length + unsent.mcp.length;
  const by = (surface: Surface) => `${counts[surface]} (${Object.entries(classes[surface]).sort().map(([c, n]) => `${c} ${n}`).join(', ')})`;
  console.log(
    `fuzz: ${total} requests — REST ${by('rest')} in-process + ${by('socket')} on a loopback socket, GraphQL ${by('graphql')}, MCP ${by('mcp')}` +
      (skipped ? `; ${skipped} not sent (app.inject refused to build them)` : ''),
  );
  for (const [surface, list] of Object.entries(unsent)) for (const u of list.slice(0, 5)) console.log(`fuzz: not sent (${surface}): ${u}`);
  // FUZZ_REPORT=<file>: every problem found, one a line (surface, tab, request → problem), for triage.
  if (process.env.FUZZ_REPORT) {
    const lines = Object.entries(problems).flatMap(([surface, list]) => list.map((p) => `${surface}\t${p}`));
    fs.writeFileSync(process.env.FUZZ_REPORT, lines.join('\n') + '\n');
  }
  await app?.close();
  await db?.drop();
  fs.rmSync(exportDir, { recursive: true, force: true });
});

/** A value the operation accepts for path parameter `name` (a seeded listing, product or barcode). */
function validPathValue(op: AnyOperation, name: string): string {
  if (name === 'gtin') return gtin;
  if (name === 'slug') return 'woolworths';
  if (name === 'id') return String(op.path.startsWith('/api/v1/products/') ? seed.productId : [...seed.listingIds.values()][0]);
  return '1';
}

/** The operation's path with every parameter valid except those in `given` (inserted verbatim). */
function pathOf(op: AnyOperation, given: Record<string, string> = {}): string {
  return op.path.replace(/\{(\w+)\}/g, (_, name: string) => given[name] ?? validPathValue(op, name));
}

describe('REST: every parameter of every registry operation', () => {
  it('answers hostile path and query values, repeated and unknown parameters and other methods without a 5xx, in the Error shape', async () => {
    const tasks: (() => Promise<void>)[] = [];
    const get = (url: string) => tasks.push(() => fire('rest', { method: 'GET', url }, restProblems));
    for (const op of operations) {
      const params = paramInfo(op);
      const base = pathOf(op);
      for (const p of params) {
        for (const { value } of TEXT_VALUES) {
          if (p.in === 'path') {
            get(pathOf(op, { [p.name]: percentEncode(value) }));
            get(pathOf(op, { [p.name]: value }));
          } else {
            get(`${base}?${p.name}=${percentEncode(value)}`);
            get(`${base}?${p.name}=${value}`);
          }
        }
        if (p.in === 'query') {
          // Repeated (X is the parameter again), array and dotted forms, no value, and a case variant.
          for (const q of ['=1&X=2', '=&X=', '=a&X=a', '[]=1', '[0]=1', '.x=1', '', '=', '=1;X=2', `=1&${p.name.toUpperCase()}=2`]) {
            get(`${base}?${p.name}${q.replaceAll('X', p.name)}`);
          }
          get(`${base}?${Array.from({ length: 200 }, () => `${p.name}=1`).join('&')}`);
        }
      }
      // Unknown, odd and numerous parameters.
      for (const q of [
        'zzz=1', '__proto__=1', '__proto__[x]=1', 'constructor=x', 'hasOwnProperty=x', 'toString=1', 'valueOf=', `${'k'.repeat(10_000)}=1`,
        '=x', '&&&', '%ZZ=1', '%00=%00', 'a=%ZZ', 'a=%', `a=${'%'.repeat(1000)}`, Array.from({ length: 2000 }, (_, i) => `p${i}=${i}`).join('&'),
      ]) get(`${base}?${q}`);
      // Path shapes around the route.
      for (const tail of ['/', '//', '/.', '/..', '/%2e%2e', '/%00', '/%ZZ', '/%', ';x=1', '/x', '%20', '%0A', '?#frag']) get(`${base}${tail}`);
      // Other methods: 405 with Allow (HEAD is GET's twin; OPTIONS without Origin is refused as no preflight).
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const) {
        tasks.push(() => fire('rest', { method, url: base, headers: { 'content-type': 'application/json' }, payload: '{"q":"milk"}' }, restProblems));
        tasks.push(() => fire('rest', { method, url: base, headers: { 'content-type': 'text/plain' }, payload: '\u0000' }, restProblems));
      }
      // Odd methods (issue 29: TRACE and PROPFIND answered 404): 405 with Allow.
      for (const method of ['TRACE', 'PROPFIND', 'QUERY', 'PURGE', 'MKCOL', 'SEARCH'] as const) {
        tasks.push(() => fire('rest', { method: method as InjectOptions['method'], url: base }, restProblems));
      }
      tasks.push(() => fire('rest', { method: 'HEAD', url: base }, headProblems));
      tasks.push(() => fire('rest', { method: 'HEAD', url: `${base}?zzz=%ZZ` }, headProblems));
    }
    await bounded(tasks, WIDTH);
    expectNoProblems('rest');
    // Hostile text that is still valid reached the database (searches with quotes, tsquery syntax…).
    expect(classes.rest['2xx'] ?? 0).toBeGreaterThan(500);
  });

  it('answers hostile bytes on a real loopback socket (no URL parser in between) without a 5xx or a hang', async () => {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const port = (app.server.address() as net.AddressInfo).port;
    const values = [
      'a b', 'a\u0000b', 'a\u0001b', 'a\tb', 'a\u007fb', 'mi"lk', "' OR 1=1 --", 'a & | ! ( ) :* <->', '../../etc/passwd', '%ZZ', '%00', '%2500',
      'мило', '\u202emilk', '🥛', 'e\u0301', '\\', '<>', '{}', '|', '^', '`', 'x'.repeat(10_000), 'y'.repeat(100_000),
    ];
    const tasks: (() => Promise<void>)[] = [];
    for (const op of operations) {
      const params = paramInfo(op);
      const targets = [
        ...params.map((p) => (v: string) => (p.in === 'path' ? pathOf(op, { [p.name]: v }) : `${pathOf(op)}?${p.name}=${v}`)),
        (v: string) => `${pathOf(op)}?zzz=${v}`,
      ];
      for (const target of targets) for (const v of values) tasks.push(() => rawGet(port, target(v)));
    }
    await bounded(tasks, WIDTH);
    expectNoProblems('socket');
  });

  it('answers odd methods, unmet expectations and long or numerous headers on a real socket without a 5xx, in the Error body (issue 29)', async () => {
    if (!app.server.listening) await app.listen({ port: 0, host: '127.0.0.1' });
    const port = (app.server.address() as net.AddressInfo).port;
    const tasks: (() => Promise<void>)[] = [];
    // Each answer by its route's rule: GraphQL's and JSON-RPC's shapes on their paths, none on HEAD.
    const ruleOf = (method: string, target: string) =>
      method === 'HEAD' ? headProblems : target === '/graphql' ? graphqlProblems : target === '/mcp' ? mcpProblems : restProblems;
    const send = (text: string, label: string) =>
      tasks.push(() => rawSend(port, text, `${label} (raw socket)`, ruleOf(text.slice(0, text.indexOf(' ')), text.slice(text.indexOf(' ') + 1).split(' ')[0])));
    const paths = [...new Set([...operations.map((op) => pathOf(op)), '/graphql', '/mcp', '/healthz', '/openapi.json', '/data/latest/manifest.json', '/nothing'])];
    for (const target of paths) {
      // Every method Node's parser takes, CONNECT aside (a tunnel: Node's own 'connect' event).
      for (const method of http.METHODS.filter((m) => m !== 'CONNECT')) {
        send(`${method} ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, `${method} ${target}`);
      }
      // A method no route serves (TRACE, PROPFIND… answered 404) is 405 with Allow on a known path.
      if (target !== '/nothing') {
        for (const method of OTHER_METHODS) {
          tasks.push(() =>
            rawSend(port, `${method} ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, `${method} ${target} (raw socket, expecting 405)`, (seen) => [
              ...restProblems(seen),
              ...(seen.status === 405 && typeof seen.headers.allow === 'string' ? [] : [`expected 405 with Allow, got ${seen.status}`]),
            ]),
          );
        }
      }
      send(`PROPFIND ${target} HTTP/1.1\r\nHost: x\r\nContent-Type: application/xml\r\nContent-Length: 7\r\nConnection: close\r\n\r\n<a:b/>\n`, `PROPFIND ${target} with a body`);
      for (const expectation of ['999-bogus', '', 'x'.repeat(4000), '100-continue, 999-bogus']) {
        send(`GET ${target} HTTP/1.1\r\nHost: x\r\nExpect: ${expectation}\r\nConnection: close\r\n\r\n`, `GET ${target} Expect: ${clip(expectation, 40)}`);
        send(`POST ${target} HTTP/1.1\r\nHost: x\r\nExpect: ${expectation}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`, `POST ${target} Expect: ${clip(expectation, 40)}`);
      }
    }
    // Long and numerous headers (Node's limit is 16 KB of headers: 431).
    for (const target of ['/api/v1/retailers', '/graphql', '/mcp']) {
      for (const [label, headers] of [
        ['a 20 KB header', `X-Long: ${'a'.repeat(20_000)}\r\n`],
        ['a 20 KB header name', `${'N'.repeat(20_000)}: 1\r\n`],
        ['2,000 headers', Array.from({ length: 2000 }, (_, i) => `X-H${i}: ${i}\r\n`).join('')],
        ['a 15 KB cookie', `Cookie: ${'c=1; '.repeat(3000)}\r\n`],
        ['a prototype-word header', '__proto__: 1\r\nconstructor: 1\r\nhasOwnProperty: 1\r\n'],
      ] as const) {
        send(`GET ${target} HTTP/1.1\r\nHost: x\r\n${headers}Connection: close\r\n\r\n`, `GET ${target} with ${label}`);
      }
    }
    await bounded(tasks, WIDTH);
    expectNoProblems('socket');
  });
});

/**
 * One GET over a fresh loopback connection with `target` written as raw UTF-8 bytes. Records a
 * problem for a 5xx, a 4xx outside the Error shape, or no complete answer within the time bound.
 * A refusal of the URL by Node's HTTP parser (400 from the server's clientErrorHandler) is fine.
 */
function rawGet(port: number, target: string): Promise<void> {
  const request = Buffer.concat([Buffer.from('GET '), Buffer.from(target, 'utf8'), Buffer.from(' HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n')]);
  return rawSend(port, request, `GET ${clip(target, 200)} (raw socket)`);
}

/**
 * Writes `request` (raw bytes) on a fresh loopback connection and checks the answer with `check`
 * (the REST rule by default), under `label`.
 */
function rawSend(port: number, request: Buffer | string, label: string, check: (seen: Seen) => string[] = restProblems): Promise<void> {
  counts.socket++;
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      problems.socket.push(`${label} → hang: no complete answer within ${HANG_MS} ms`);
      socket.destroy();
    }, HANG_MS);
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', () => {}); // a reset after the answer is fine; no answer is reported below
    socket.on('close', () => {
      clearTimeout(timer);
      // Interim answers (100 Continue to an Expect) come before the final one: skipped.
      const text = Buffer.concat(chunks).toString('utf8').replace(/^(HTTP\/1\.[01] 1\d\d [^\r\n]*\r\n(?:[^\r\n]+\r\n)*\r\n)+/, '');
      const [head, ...rest] = text.split('\r\n\r\n');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1]);
      if (!status) {
        if (chunks.length || !problems.socket.some((p) => p.startsWith(label))) problems.socket.push(`${label} → no HTTP answer: ${clip(text)}`);
        return resolve();
      }
      const headers: Record<string, string> = {};
      for (const line of head.split('\r\n').slice(1)) {
        const i = line.indexOf(':');
        headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
      }
      tally('socket', status);
      let body = rest.join('\r\n\r\n');
      if (/chunked/i.test(headers['transfer-encoding'] ?? '')) body = dechunk(body);
      for (const p of check({ status, headers, body })) problems.socket.push(`${label} → ${p}`);
      resolve();
    });
    socket.write(request);
  });
}

function dechunk(body: string): string {
  let out = '';
  let rest = body;
  for (;;) {
    const i = rest.indexOf('\r\n');
    const size = parseInt(rest.slice(0, i), 16);
    if (!(size > 0)) return out;
    out += rest.slice(i + 2, i + 2 + size);
    rest = rest.slice(i + 2 + size + 2);
  }
}

/** GraphQL string literal of `s` with JSON's escapes (GraphQL accepts the same; lone surrogates are refused by the lexer). */
const escaped = (s: string) => JSON.stringify(s);
/** GraphQL string literal of `s` with only `"` and `\` escaped: controls and surrogates raw in the source. */
const rawLiteral = (s: string) => `"${s.replace(/[\\"]/g, (c) => `\\${c}`)}"`;

/** Literals that are not (only) strings, tried for every argument of every type. */
const OTHER_LITERALS = [
  '5', '-1', '0', '-0', '1.5', '5.0', '1e3', '9007199254740993', '2147483647', '2147483648', '-2147483649', '1' + '0'.repeat(400),
  'true', 'false', 'null', '[]', '[1]', '["a", "b"]', '{}', '{a: 1}', 'NaN', 'Infinity', 'major', 'MAJOR', '$undeclared',
  '0x10', '""', '"5"', '"""5"""', '"""\u0000"""', '"""a\\"""b"""', '[[[[[[[[[[1]]]]]]]]]]', '{a: {b: {c: [1, {d: 2}]}}}',
];

/** Rendered arguments for the non-null arguments of `field` other than `except`, with valid values. */
function requiredArgs(field: GraphQLField<unknown, unknown>, except?: string): string[] {
  return field.args
    .filter((a) => a.name !== except && isNonNullType(a.type))
    .map((a) => `${a.name}: ${validLiteral(field.name, a)}`);
}

/** A value `field` accepts for `arg` (seeded ids and barcode where the name says so). */
function validLiteral(field: string, arg: GraphQLArgument): string {
  const named = getNamedType(arg.type);
  if (isEnumType(named)) return named.getValues()[0].name;
  if (named.name === 'Int') {
    if (field.startsWith('product')) return String(seed.productId);
    if (field.startsWith('listing')) return String([...seed.listingIds.values()][0]);
    return '1';
  }
  if (arg.name === 'gtin') return escaped(gtin);
  return '"milk"';
}

describe('GraphQL: every argument of every Query field', () => {
  const schemaText = fs.readFileSync(path.join(ROOT_DIR, 'schema', 'schema.graphql'), 'utf8');
  const sdl = buildSchema(schemaText);
  const fields = Object.values(sdl.getQueryType()!.getFields());

  const post = (payload: string | Buffer, headers: Record<string, string> = {}) =>
    fire(
      'graphql',
      { method: 'POST', url: '/graphql', remoteAddress: freshAddress(), headers: { 'content-type': 'application/json', accept: 'application/json', ...headers }, payload },
      graphqlProblems,
    );
  const postQuery = (query: string, variablesJson?: string) =>
    post(variablesJson === undefined ? JSON.stringify({ query }) : `{"query":${JSON.stringify(query)},"variables":${variablesJson}}`);

  it('has fields with arguments to fuzz (the schema file is read)', () => {
    expect(fields.filter((f) => f.args.length).length).toBeGreaterThan(5);
  });

  it('answers hostile literals and variables for every argument with a well-formed GraphQL response', async () => {
    const tasks: (() => Promise<void>)[] = [];
    for (const field of fields) {
      const selection = isLeafType(getNamedType(field.type)) ? '' : ' { __typename }';
      const call = (args: string[]) => `${field.name}${args.length ? `(${args.join(', ')})` : ''}${selection}`;
      for (const arg of field.args) {
        const others = requiredArgs(field, arg.name);
        const literal = (text: string) => tasks.push(() => postQuery(`{ ${call([...others, `${arg.name}: ${text}`])} }`));
        for (const { value } of TEXT_VALUES) {
          literal(escaped(value));
          if (rawLiteral(value) !== escaped(value)) literal(rawLiteral(value));
        }
        for (const text of OTHER_LITERALS) literal(text);
        for (const { value } of HOSTILE_STRINGS.slice(0, 12)) literal(`"""${value}"""`);
        // Variables of the argument's own type, then of mismatched types.
        const declared = `query ($v: ${String(arg.type)}) { ${call([...others, `${arg.name}: $v`])} }`;
        for (const { value } of HOSTILE_JSON) tasks.push(() => postQuery(declared, `{"v":${value}}`));
        tasks.push(() => postQuery(declared, '{}'));
        tasks.push(() => postQuery(declared));
        for (const type of ['String!', 'Int!', 'Float', 'Boolean', 'ID', '[String]', '[[Int!]!]', 'UrbanClass', 'NoSuchType']) {
          const mismatched = `query ($v: ${type}) { ${call([...others, `${arg.name}: $v`])} }`;
          for (const v of ['"5"', '5', 'null', '["\\u0000"]']) tasks.push(() => postQuery(mismatched, `{"v":${v}}`));
        }
      }
      // Missing required, unknown and duplicated arguments; an alias of a hostile argument.
      tasks.push(() => postQuery(`{ ${call([])} }`));
      tasks.push(() => postQuery(`{ ${call([...requiredArgs(field), 'zzz: 1'])} }`));
      tasks.push(() => postQuery(`{ ${call([...requiredArgs(field), '__proto__: 1'])} }`));
      if (field.args.length) {
        const a = field.args[0];
        tasks.push(() => postQuery(`{ ${call([...requiredArgs(field, a.name), `${a.name}: ${validLiteral(field.name, a)}`, `${a.name}: ${validLiteral(field.name, a)}`])} }`));
      }
      tasks.push(() => postQuery(`{ ${field.name} { zzz } }`));
    }
    await bounded(tasks, WIDTH);
    expectNoProblems('graphql');
  });

  it('answers malformed documents and request envelopes without a 5xx', async () => {
    const some = fields.find((f) => f.name === 'retailers') ?? fields[0];
    const leaf = some.name + (isLeafType(getNamedType(some.type)) ? '' : ' { __typename }');
    const documents = [
      '', ' ', '{', '}', '{ retailers {', '{ retailers { __typename }', '}}}}', 'query', 'query {', '# only a comment', '\u0000', '\ufeff{ health }',
      'query { health } query { health }', 'query A { health } query A { health }', 'mutation { health }', 'subscription { health }',
      '{ __schema { types { name } } }', '{ __type(name: "\u0000") { name } }', '{ __typename }', 'fragment F on Query { health } { ...F ...F }',
      'fragment F on Query { ...F } { ...F }', '{ health @skip(if: true) @include(if: false) @deprecated }', '{ health @zzz }',
      `{ ${'{'.repeat(10_000)} }`, '{'.repeat(100_000), '['.repeat(100_000), `query { ${'__typename '.repeat(2000)} }`,
      `query { ${Array.from({ length: 31 }, (_, i) => `a${i}: health`).join(' ')} }`,
      `query { ${Array.from({ length: 5000 }, (_, i) => `a${i}: health`).join(' ')} }`,
      `query { ${'a: '.repeat(500)}health }`,
      `query ${'($v: Int)'.repeat(1)} { health }`,
      `query (${Array.from({ length: 400 }, (_, i) => `$v${i}: Int`).join(', ')}) { health }`,
      `{ ${leaf} ${'#'.repeat(100_000)}\n}`,
      `{ ${leaf}${' '.repeat(1_000_000)}}`,
      `{ suggest(q: "${'q'.repeat(1_000_000)}") { __typename } }`,
      `{ ${'x '.repeat(500_000)} }`,
      `{ health(${'a: 1, '.repeat(2000)}) }`,
      `{ ${nestedSelection(200)} }`,
      '{ health }'.repeat(2000),
      '{ "health" }', "{ 'health' }", '{ health: }', '{ :health }', '{ health(,) }', '{ ...on Query { health } }', '{ ... }', 'query ($: Int) { health }',
      '{ health }\u0000garbage', '{ health } }', '"""unterminated', '"unterminated', '{ suggest(q: "\\u{110000}") { __typename } }',
      '{ suggest(q: "\\uD800\\uDC00") { __typename } }', '{ suggest(q: "\\x41") { __typename } }',
    ];
    const tasks: (() => Promise<void>)[] = documents.map((d) => () => postQuery(d));
    // Envelopes: not JSON, not an object, query/variables/operationName/extensions of every wrong type.
    const envelopes: (string | Buffer)[] = [
      '', ' ', 'null', '5', '"{ health }"', 'true', '[]', '[{"query":"{ health }"}]', '{', '{"query":', '{}', '{"query":null}', '{"query":5}',
      '{"query":["{ health }"]}', '{"query":{"a":1}}', '{"query":"{ health }","variables":"x"}', '{"query":"{ health }","variables":[1]}',
      '{"query":"{ health }","variables":5}', '{"query":"{ health }","operationName":5}', '{"query":"{ health }","operationName":"zzz"}',
      '{"query":"{ health }","operationName":"\\u0000"}', '{"query":"{ health }","extensions":"x"}',
      '{"query":"{ health }","extensions":{"persistedQuery":{"version":1,"sha256Hash":"zz"}}}',
      '{"extensions":{"persistedQuery":{"version":1,"sha256Hash":"' + '0'.repeat(64) + '"}}}',
      '{"query":"{ health }","__proto__":{"polluted":1}}', '{"query":"{ health }","query":"{ retailers { id } }"}',
      `{"query":"query ($v: String) { health }","variables":{"v":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`,
      `{"query":"query ($v: String) { health }","variables":{"v":${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}}}`,
      `{"query":"query ($v: String) { suggest(q: $v) { __typename } }","variables":{"v":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`,
      `{"query":"{ health }","variables":${'['.repeat(100_000)}${']'.repeat(100_000)}}`,
      `{"query":"{ health }","variables":{"v":"${'x'.repeat(900_000)}"}}`,
      `{"query":"{ health }","pad":"${'x'.repeat(2_000_000)}"}`,
      Buffer.from([0x7b, 0x22, 0x71, 0x75, 0x65, 0x72, 0x79, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc0, 0x80, 0xed, 0xa0, 0x80, 0x22, 0x7d]),
      Buffer.concat([Buffer.from('{"query":"{ suggest(q: \\"'), Buffer.from([0xed, 0xa0, 0x80, 0xc0, 0x80]), Buffer.from('\\") { __typename } }"}')]),
    ];
    for (const e of envelopes) tasks.push(() => post(e));
    // Content types and accept headers Yoga and Fastify might not take.
    for (const [type, body] of [
      ['text/plain', '{ health }'], ['application/graphql', '{ health }'], ['application/graphql+json', '{"query":"{ health }"}'],
      ['application/x-www-form-urlencoded', 'query=%7B%20health%20%7D'], ['multipart/form-data; boundary=x', '--x\r\n\r\n--x--'],
      ['application/json; charset=utf-16', '{"query":"{ health }"}'], ['application/json; charset=zzz', '{"query":"{ health }"}'],
      ['\u0001', '{"query":"{ health }"}'], ['application/xml', '<query/>'], ['', '{"query":"{ health }"}'],
    ] as const) tasks.push(() => post(body, { 'content-type': type }));
    for (const accept of ['text/html', 'application/graphql-response+json', 'text/event-stream', '*/*;q=0', 'zzz']) {
      tasks.push(() => post(JSON.stringify({ query: '{ health }' }), { accept }));
    }
    // GET /graphql with hostile query strings.
    for (const q of [
      'query=%7B%20health%20%7D', 'query=%ZZ', 'query=', 'query=%7B&query=%7D', 'query=mutation%7Bhealth%7D', 'variables=%7B', 'query=%7Bhealth%7D&variables=%5B%5D',
      'query=%7Bhealth%7D&variables=%ZZ', `query=${'%7B'.repeat(20_000)}`, 'query=%7B%20suggest(q%3A%22%00%22)%7B__typename%7D%7D', 'extensions=x',
    ]) tasks.push(() => fire('graphql', { method: 'GET', url: `/graphql?${q}`, remoteAddress: freshAddress(), headers: { accept: 'application/json' } }, graphqlProblems));
    // Issue 29: the caller's malformed requests, each refused 400 BAD_REQUEST (variables 8,000 deep
    // answered 500: the text walk ran out of stack; a malformed persisted query answered 200).
    const badRequest = (seen: Seen) => [
      ...graphqlProblems(seen),
      ...(seen.status === 400 && /"code":"BAD_REQUEST"/.test(seen.body) ? [] : [`expected 400 BAD_REQUEST, got ${seen.status}: ${clip(seen.body)}`]),
    ];
    const strictPost = (payload: string) =>
      tasks.push(() =>
        fire('graphql', { method: 'POST', url: '/graphql', remoteAddress: freshAddress(), headers: { 'content-type': 'application/json', accept: 'application/json' }, payload }, badRequest),
      );
    const strictGet = (q: string) =>
      tasks.push(() => fire('graphql', { method: 'GET', url: `/graphql?${q}`, remoteAddress: freshAddress(), headers: { accept: 'application/json' } }, badRequest));
    const reads = (type: string, field: string) => JSON.stringify(`query ($v: ${type}) { ${field} }`);
    for (const depth of [4_000, 8_000, 20_000]) {
      const object = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
      const array = `${'['.repeat(depth)}${']'.repeat(depth)}`;
      strictPost(`{"query":${reads('String', 'searchListings(q: $v) { id }')},"variables":{"v":${object}}}`);
      strictPost(`{"query":${reads('String', 'searchListings(q: $v) { id }')},"variables":{"v":${array}}}`);
      strictPost(`{"query":${reads('[String]', 'suggest(q: "milk") { __typename }')},"variables":{"v":${array}}}`);
      strictPost(`{"query":"{ health }","extensions":{"x":${object}}}`);
      strictGet(`query=${encodeURIComponent('query ($v: String) { searchListings(q: $v) { id } }')}&variables=${encodeURIComponent(`{"v":${array}}`)}`);
    }
    for (const pq of ['1', 'null', '"x"', '[]', '{}', `{"version":2,"sha256Hash":"${'0'.repeat(64)}"}`, '{"version":1}', '{"version":1,"sha256Hash":5}', `{"version":"1","sha256Hash":"${'0'.repeat(64)}"}`, '{"version":1,"sha256Hash":"zz"}']) {
      strictPost(`{"extensions":{"persistedQuery":${pq}}}`);
      strictPost(`{"query":"{ health }","extensions":{"persistedQuery":${pq}}}`);
      strictGet(`extensions=${encodeURIComponent(`{"persistedQuery":${pq}}`)}`);
    }
    for (const e of ['5', '[]', '"x"']) {
      strictPost(`{"query":"{ health }","extensions":${e}}`);
      strictGet(`extensions=${encodeURIComponent(e)}`);
    }
    for (const method of ['PUT', 'PATCH', 'DELETE'] as const) {
      tasks.push(() => fire('graphql', { method, url: '/graphql', headers: { 'content-type': 'application/json' }, payload: '{"query":"{ health }"}' }, graphqlProblems));
    }
    await bounded(tasks, WIDTH);
    expectNoProblems('graphql');
  });
});

/** `listing(id: 1) { product { offers { listing { … } } } }`, `levels` deep (the depth limit refuses it). */
function nestedSelection(levels: number): string {
  const steps = ['product', 'offers', 'listing'];
  let open = 'listing(id: 1)';
  for (let i = 0; i < levels; i++) open += ` { ${steps[i % 3]}`;
  return `${open} { id }${' }'.repeat(levels)}`;
}

describe('MCP: tools/call of every listed tool with hostile arguments, and malformed JSON-RPC', () => {
  const MODERN = '2026-07-28';
  const LEGACY = '2025-11-25';
  const ENVELOPE = {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'fuzz', version: '1.0.0' },
  };
  const ACCEPT = 'application/json, text/event-stream';
  let id = 0;

  const send = (payload: string | Buffer, headers: Record<string, string> = {}, base: Record<string, string> = { 'content-type': 'application/json', accept: ACCEPT }) =>
    fire('mcp', { method: 'POST', url: '/mcp', headers: { ...base, ...headers }, payload }, mcpProblems);

  /** A 2026-07-28 tools/call of `name` whose `arguments` is the JSON text `argsJson` (omitted when undefined). */
  const modernCall = (name: string, argsJson: string | undefined) =>
    send(
      `{"jsonrpc":"2.0","id":${++id},"method":"tools/call","params":{"name":${JSON.stringify(name)},${argsJson === undefined ? '' : `"arguments":${argsJson},`}"_meta":${JSON.stringify(ENVELOPE)}}}`,
      { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': name },
    );
  /** The same call as 2025-era traffic (no envelope). */
  const legacyCall = (name: string, argsJson: string | undefined) =>
    send(
      `{"jsonrpc":"2.0","id":${++id},"method":"tools/call","params":{"name":${JSON.stringify(name)}${argsJson === undefined ? '' : `,"arguments":${argsJson}`}}}`,
      { 'mcp-protocol-version': LEGACY },
    );

  interface Tool {
    name: string;
    inputSchema: { properties?: Record<string, { type?: string; minimum?: number }>; required?: string[] };
  }

  async function listTools(): Promise<Tool[]> {
    const r = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { 'content-type': 'application/json', accept: ACCEPT, 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' },
      payload: JSON.stringify({ jsonrpc: '2.0', id: ++id, method: 'tools/list', params: { _meta: ENVELOPE } }),
    });
    expect(r.statusCode, r.body).toBe(200);
    return (r.json() as { result: { tools: Tool[] } }).result.tools;
  }

  /** Valid arguments: the required properties with seeded values (ids, barcode) or their minimum. */
  function validArgs(tool: Tool, except?: string): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const name of tool.inputSchema.required ?? []) {
      if (name === except) continue;
      const prop = tool.inputSchema.properties?.[name] ?? {};
      if (name === 'gtin') out[name] = gtin;
      else if (prop.type === 'integer') out[name] = tool.name.includes('product') ? seed.productId : [...seed.listingIds.values()][0];
      else out[name] = 'milk';
    }
    return out;
  }

  /** `args` as JSON text with property `name` set to the JSON text `valueJson` (kept verbatim). */
  function withRaw(args: Record<string, unknown>, name: string, valueJson: string): string {
    const rest = JSON.stringify(args).slice(1, -1);
    return `{${rest}${rest ? ',' : ''}${JSON.stringify(name)}:${valueJson}}`;
  }

  it('lists the registry tools, and answers hostile arguments for every property of every tool as JSON-RPC', async () => {
    const tools = await listTools();
    counts.mcp++;
    expect(tools.length).toBe(operations.filter((op) => !op.internal).length);
    const tasks: (() => Promise<void>)[] = [];
    const legacyValues = HOSTILE_JSON.filter((v) => !v.label.startsWith('string ') || /NUL|surrogate|101|100,000|numeric text "(\+5|1e3|NaN)"/.test(v.label));
    for (const tool of tools) {
      const props = Object.keys(tool.inputSchema.properties ?? {});
      for (const prop of props) {
        const others = validArgs(tool, prop);
        for (const { value } of HOSTILE_JSON) tasks.push(() => modernCall(tool.name, withRaw(others, prop, value)));
        for (const { value } of legacyValues) tasks.push(() => legacyCall(tool.name, withRaw(others, prop, value)));
      }
      // Missing required, no arguments, arguments of every wrong type, unknown extras, everything hostile at once.
      const extras = ['{"zzz":1}', '{"__proto__":{"id":1}}', '{"constructor":{"prototype":1}}', '{"":""}'];
      for (const args of [undefined, '{}', '[]', '[{"id":1}]', '"x"', '5', 'null', 'true', ...extras]) {
        tasks.push(() => modernCall(tool.name, args));
        tasks.push(() => legacyCall(tool.name, args));
      }
      for (const args of extras) tasks.push(() => modernCall(tool.name, mergeValid(tool, args)));
      const allNul = Object.fromEntries(props.map((p) => [p, tool.inputSchema.properties?.[p]?.type === 'integer' ? '\u0000' : 'a\u0000'.repeat(60)]));
      tasks.push(() => modernCall(tool.name, JSON.stringify(allNul)));
      tasks.push(() => modernCall(tool.name, JSON.stringify(Object.fromEntries(props.map((p) => [p, 'z'.repeat(100_000)])))));
      tasks.push(() => modernCall(tool.name, JSON.stringify({ ...validArgs(tool), ...Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`extra${i}`, i])) })));
      // Mcp-Name header that disagrees with params.name.
      tasks.push(() =>
        send(
          JSON.stringify({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name: tool.name, arguments: validArgs(tool), _meta: ENVELOPE } }),
          { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': `${tool.name}x` },
        ),
      );
    }
    // Tool names that are not tools (legacy: no header has to carry them).
    for (const { value } of TEXT_VALUES) tasks.push(() => legacyCall(value, '{}'));
    for (const name of ['5', 'null', '[]', '{}', 'true']) {
      tasks.push(() => send(`{"jsonrpc":"2.0","id":${++id},"method":"tools/call","params":{"name":${name},"arguments":{}}}`, { 'mcp-protocol-version': LEGACY }));
    }
    await bounded(tasks, WIDTH);
    expectNoProblems('mcp');

    function mergeValid(tool: Tool, args: string): string {
      return JSON.stringify({ ...validArgs(tool), ...(JSON.parse(args) as object) });
    }
  });

  it('answers prompts/get and resources/read of every listed prompt and resource with hostile arguments as JSON-RPC', async () => {
    const list = async (method: string) => {
      const r = await app.inject({
        method: 'POST',
        url: '/mcp',
        headers: { 'content-type': 'application/json', accept: ACCEPT, 'mcp-protocol-version': MODERN, 'mcp-method': method },
        payload: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params: { _meta: ENVELOPE } }),
      });
      counts.mcp++;
      expect(r.statusCode, r.body).toBe(200);
      return r.json().result as Record<string, { name: string; uri: string; arguments?: { name: string; required?: boolean }[] }[]>;
    };
    const prompts = (await list('prompts/list')).prompts;
    const resources = (await list('resources/list')).resources;
    expect(prompts.length).toBeGreaterThan(0);
    const tasks: (() => Promise<void>)[] = [];
    const call = (method: string, name: string, paramsJson: string) => {
      tasks.push(() =>
        send(`{"jsonrpc":"2.0","id":${++id},"method":"${method}","params":{${paramsJson},"_meta":${JSON.stringify(ENVELOPE)}}}`, {
          'mcp-protocol-version': MODERN,
          'mcp-method': method,
          'mcp-name': name,
        }),
      );
      tasks.push(() => send(`{"jsonrpc":"2.0","id":${++id},"method":"${method}","params":{${paramsJson}}}`, { 'mcp-protocol-version': LEGACY }));
    };
    for (const prompt of prompts) {
      const names = (prompt.arguments ?? []).map((a) => a.name);
      const valid = Object.fromEntries((prompt.arguments ?? []).filter((a) => a.required).map((a) => [a.name, 'milk']));
      for (const arg of names) {
        const others = Object.fromEntries(Object.entries(valid).filter(([k]) => k !== arg));
        for (const { value } of HOSTILE_JSON) call('prompts/get', prompt.name, `"name":${JSON.stringify(prompt.name)},"arguments":${withRaw(others, arg, value)}`);
      }
      for (const args of ['{}', '[]', '"x"', 'null', '5', '{"zzz":"1"}']) call('prompts/get', prompt.name, `"name":${JSON.stringify(prompt.name)},"arguments":${args}`);
    }
    for (const uri of [
      ...resources.map((r) => r.uri), ...resources.map((r) => `${r.uri}/../../../etc/passwd`), ...resources.map((r) => `${r.uri}?x=%ZZ`),
      'file:///etc/passwd', '../../package.json', '', 'http://127.0.0.1:5432/', 'x'.repeat(10_000), 'a\u0000b', '\ud800', 'data:,x', 'javascript:alert(1)',
    ]) {
      // Mcp-Name must repeat the URI; a header cannot carry controls or more than a line, so those go as 'x' (a mismatch, refused 400).
      call('resources/read', /^[\x20-\x7e]{1,1000}$/.test(uri) ? uri : 'x', `"uri":${JSON.stringify(uri)}`);
    }
    await bounded(tasks, WIDTH);
    expectNoProblems('mcp');
  });

  it('answers malformed JSON-RPC (versions, methods, ids, params, bodies, headers) with JSON-RPC errors, never a 5xx', async () => {
    const tasks: (() => Promise<void>)[] = [];
    const envelope = JSON.stringify(ENVELOPE);
    const legacyHeaders = { 'mcp-protocol-version': LEGACY };
    const modernHeaders = (method: string) => ({ 'mcp-protocol-version': MODERN, 'mcp-method': method });
    // Message fields of wrong types, in both eras.
    const fields: Record<string, string[]> = {
      jsonrpc: ['"1.0"', '"2.0 "', '2', '2.0', 'null', '[]', '{}', '""'],
      method: ['5', 'null', '""', '[]', '{}', '"tools/call\\u0000"', '"\\ud800"', `"${'m'.repeat(10_000)}"`, '"rpc.discover"', '"__proto__"', '"constructor"', '"toString"', '"tools/list/"', '"TOOLS/LIST"'],
      id: ['{}', '[]', '1.5', 'true', 'false', 'null', '-1', '1e400', '9007199254740993', `"${'i'.repeat(10_000)}"`, '"\\u0000"', '"\\ud800"', '{"a":[1]}'],
      params: ['[]', '"x"', '5', 'null', 'true', '[{"name":"list_retailers"}]', '{"_meta":5}', '{"_meta":[]}', '{"_meta":null}', '{"_meta":{"io.modelcontextprotocol/protocolVersion":5}}'],
    };
    const message = (over: Record<string, string | undefined>, legacy: boolean) => {
      const parts: Record<string, string | undefined> = {
        jsonrpc: '"2.0"',
        id: String(++id),
        method: '"tools/list"',
        params: legacy ? '{}' : `{"_meta":${envelope}}`,
        ...over,
      };
      return `{${Object.entries(parts).filter(([, v]) => v !== undefined).map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`;
    };
    for (const [field, values] of Object.entries(fields)) {
      for (const v of [...values, undefined]) {
        tasks.push(() => send(message({ [field]: v }, true), legacyHeaders));
        tasks.push(() => send(message({ [field]: v }, true), {}));
        tasks.push(() => send(message({ [field]: v }, false), modernHeaders('tools/list')));
      }
    }
    // Each method the SDK knows with params of every wrong type.
    for (const method of ['initialize', 'ping', 'tools/list', 'tools/call', 'resources/list', 'resources/read', 'resources/templates/list', 'prompts/list', 'prompts/get', 'completion/complete', 'logging/setLevel', 'server/discover', 'subscriptions/listen', 'notifications/initialized', 'notifications/cancelled']) {
      for (const params of ['[]', '"x"', 'null', '{}', '{"name":5,"uri":5,"arguments":"x","ref":null,"argument":[]}', '{"uri":"file:///etc/passwd","name":"../../etc/passwd"}']) {
        tasks.push(() => send(`{"jsonrpc":"2.0","id":${++id},"method":"${method}","params":${params}}`, legacyHeaders));
        tasks.push(() => send(`{"jsonrpc":"2.0","id":${++id},"method":"${method}","params":${params}}`, {}));
        const modernParams = params.startsWith('{') ? `{${params.slice(1, -1)}${params === '{}' ? '' : ','}"_meta":${envelope}}` : params;
        tasks.push(() => send(`{"jsonrpc":"2.0","id":${++id},"method":"${method}","params":${modernParams}}`, modernHeaders(method)));
      }
    }
    // Whole bodies: empty, not JSON, not an object, batches, deep nesting, too large, invalid UTF-8.
    const bodies: (string | Buffer)[] = [
      '', ' ', 'null', '5', '"x"', 'true', '{', '{"jsonrpc":"2.0",', '}', '[]', '[1,2]', '[null]', '[[]]',
      JSON.stringify(Array.from({ length: 11 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'ping' }))),
      JSON.stringify(Array.from({ length: 10 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'get_listing', arguments: { id: '\u0000' } } }))),
      JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'ping' }, { jsonrpc: '2.0', method: 'notifications/initialized' }, 5, { jsonrpc: '1.0' }]),
      '['.repeat(30_000) + ']'.repeat(30_000),
      `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}`,
      `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_listings","arguments":{"q":${'['.repeat(20_000)}${']'.repeat(20_000)}}}}`,
      `{"jsonrpc":"2.0","id":1,"method":"ping","pad":"${'x'.repeat(70_000)}"}`,
      `{"jsonrpc":"2.0","id":1,"method":"ping","params":{},"jsonrpc":"1.0"}`,
      '{"jsonrpc":"2.0","id":1,"method":"ping","__proto__":{"method":"tools/list"}}',
      Buffer.from([0x7b, 0x22, 0x6a, 0x73, 0x6f, 0x6e, 0x72, 0x70, 0x63, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xed, 0xa0, 0x80, 0x22, 0x7d]),
      Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_listings","arguments":{"q":"'), Buffer.from([0xed, 0xa0, 0x80, 0xc0, 0x80]), Buffer.from('"}}}')]),
      '\ufeff{"jsonrpc":"2.0","id":1,"method":"ping"}',
    ];
    for (const b of bodies) {
      tasks.push(() => send(b, {}));
      tasks.push(() => send(b, legacyHeaders));
      tasks.push(() => send(b, modernHeaders('ping')));
    }
    // Headers: protocol versions, method and name disagreements, content types and accept values.
    const ping = (legacy: boolean) => (legacy ? `{"jsonrpc":"2.0","id":${++id},"method":"ping"}` : `{"jsonrpc":"2.0","id":${++id},"method":"ping","params":{"_meta":${envelope}}}`);
    for (const version of ['9999-99-99', '', ' ', '2025-03-26', '2024-11-05', '2026-07-28, 2025-11-25', 'x'.repeat(2000), '../../', '2026-07-28\t']) {
      tasks.push(() => send(ping(true), { 'mcp-protocol-version': version }));
      tasks.push(() => send(ping(false), { 'mcp-protocol-version': version, 'mcp-method': 'ping' }));
    }
    for (const m of ['tools/list', '', 'PING', 'x'.repeat(2000)]) tasks.push(() => send(ping(false), { 'mcp-protocol-version': MODERN, 'mcp-method': m }));
    tasks.push(() => send(ping(false), { 'mcp-protocol-version': MODERN, 'mcp-method': 'ping', 'mcp-name': 'zzz' }));
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=utf-16', 'application/jsonx', '', '*/*']) {
      tasks.push(() => send(ping(true), legacyHeaders, { 'content-type': type, accept: ACCEPT }));
    }
    for (const accept of ['text/html', 'application/json', 'text/event-stream', '', '*/*', 'zzz']) {
      tasks.push(() => send(ping(true), legacyHeaders, { 'content-type': 'application/json', accept }));
      tasks.push(() => send(ping(false), modernHeaders('ping'), { 'content-type': 'application/json', accept }));
    }
    // Methods other than POST.
    for (const method of ['GET', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const) {
      tasks.push(() =>
        fire('mcp', { method, url: '/mcp', headers: { 'content-type': 'application/json', accept: ACCEPT }, payload: method === 'GET' || method === 'HEAD' ? undefined : ping(true) }, method === 'HEAD' ? headProblems : restProblems),
      );
    }
    tasks.push(() => fire('mcp', { method: 'POST', url: '/mcp?zzz=%ZZ&x=1&x=2', headers: { 'content-type': 'application/json', accept: ACCEPT, ...legacyHeaders }, payload: ping(true) }, mcpProblems));
    tasks.push(() => fire('mcp', { method: 'POST', url: '/mcp/', headers: { 'content-type': 'application/json', accept: ACCEPT }, payload: ping(true) }, restProblems));
    await bounded(tasks, WIDTH);
    expectNoProblems('mcp');
  });
});
