/**
 * Hostile inputs and response checks for the fuzz and fault suite (test/integration/fuzz.test.ts,
 * issue 13). Nothing here knows an operation by name: the suite derives every parameter from the
 * registry, the GraphQL schema and `tools/list`, and feeds it the values below.
 *
 * Each check returns a list of problems (empty when the response is acceptable) instead of
 * throwing, so one run reports every defect it finds, not just the first.
 */
import { prng } from './prng.js';


/** Fixed seed of the suite's generated values. */
export const FUZZ_SEED = 13;

/** Code point pools the generated strings draw from: ASCII syntax, controls, marks, RTL, astral, surrogates. */
const POOLS: readonly (readonly number[])[] = [
  [...'%_\\\'";:*&|!()<>-=/.?#[]{}$^~`@+, '].map((c) => c.codePointAt(0)!),
  [0x00, 0x01, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1b, 0x7f, 0x85, 0xa0],
  [0x300, 0x301, 0x308, 0x20dd, 0x200b, 0x200c, 0x200d, 0xfeff, 0xfffd, 0xffff],
  [0x200e, 0x200f, 0x202a, 0x202b, 0x202d, 0x202e, 0x2066, 0x2067, 0x2069, 0x061c],
  [0x1f95b, 0x1f9c0, 0x1f468, 0x1f3f3, 0x1d7d8, 0x10ffff, 0xe0001],
  [0xd800, 0xdbff, 0xdc00, 0xdfff],
  [...'abcxyzAZ09'].map((c) => c.codePointAt(0)!),
];

/** `count` strings of 1 to 40 code points mixed from {@link POOLS} (lone surrogates included), from `seed`. */
export function randomStrings(seed: number, count: number): string[] {
  const next = prng(seed);
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const length = 1 + Math.floor(next() * 40);
    let s = '';
    for (let j = 0; j < length; j++) {
      const pool = POOLS[Math.floor(next() * POOLS.length)];
      s += String.fromCharCode(...codeUnits(pool[Math.floor(next() * pool.length)]));
    }
    out.push(s);
  }
  return out;
}

function codeUnits(cp: number): number[] {
  if (cp < 0x10000) return [cp];
  const v = cp - 0x10000;
  return [0xd800 + (v >> 10), 0xdc00 + (v & 0x3ff)];
}

/** A labelled hostile value. */
export interface Hostile<T> {
  label: string;
  value: T;
}

const h = <T>(label: string, value: T): Hostile<T> => ({ label, value });

/**
 * Every key a plain object answers without owning it: Object.prototype's own names (`constructor`,
 * `__proto__`, `toString`, `valueOf`, `hasOwnProperty`, `isPrototypeOf`, `__defineGetter__`…) and
 * `prototype`. A plain object used as a dictionary of such words finds them (issue 29:
 * `?q=constructor` answered 500); each must be an ordinary word everywhere.
 */
export const PROTOTYPE_WORDS: readonly string[] = [...new Set([...Object.getOwnPropertyNames(Object.prototype), 'prototype'])];

/**
 * The prototype words as a shopper might type them: as they are, upper case, inside other words,
 * and in the plural (singularised by the shelf matching, "constructors" → "constructor").
 */
export const PROTOTYPE_TEXTS: readonly Hostile<string>[] = PROTOTYPE_WORDS.flatMap((w) => [
  h(`prototype word ${w}`, w),
  h(`prototype word ${w} (upper case)`, w.toUpperCase()),
  h(`prototype word ${w} in a phrase`, `milk ${w}s ${w}`),
]);

/** Hostile text: lengths, controls, Unicode edge cases, LIKE/SQL/tsquery syntax, paths, encodings. */
export const HOSTILE_STRINGS: readonly Hostile<string>[] = [
  h('empty', ''),
  h('one space', ' '),
  h('whitespace only', ' \t\n '),
  h('100 chars (the bound)', 'x'.repeat(100)),
  h('101 chars', 'a'.repeat(101)),
  h('10,000 chars', 'b'.repeat(10_000)),
  h('100,000 chars', 'c'.repeat(100_000)),
  h('NUL inside', 'mi\u0000lk'),
  h('NUL only', '\u0000'),
  h('C0 and C1 controls', '\u0001\u0002\u0007\b\t\n\u000b\f\r\u001b\u007f\u0085\u009f'),
  h('CRLF header injection', 'milk\r\nX-Injected: 1\r\n\r\n'),
  h('lone high surrogate', '\ud800'),
  h('lone low surrogate', 'a\udc00b'),
  h('reversed surrogate pair', '\udc00\ud800'),
  h('high surrogate at end', 'milk\udbff'),
  h('emoji with ZWJ and flags', '🥛🧀 👨‍👩‍👧‍👦 🏳️‍🌈 🇳🇿'),
  h('100 emoji (200 UTF-16 units)', '🥛'.repeat(100)),
  h('combining marks (zalgo)', 'm\u0301\u0302\u0303i\u0334\u0335l\u0336k\u0337\u0338'),
  h('one letter and 99 combining marks', 'e' + '\u0301'.repeat(99)),
  h('one letter and 100 combining marks', 'e' + '\u0301'.repeat(100)),
  h('RTL and bidi controls', '\u202emilk\u202c \u200f\u05d7\u05dc\u05d1\u200e \u2067x\u2069 \u061c'),
  h('zero-width and BOM', '\ufeff\u200bmi\u200clk\u200d'),
  h('noncharacters', '\ufffe\uffff\u{10ffff}'),
  h('fullwidth and other digits', '１２３ ٣ ߁ 𝟘'),
  h('percent', '%'),
  h('underscore', '_'),
  h('LIKE wildcards', '%_%'),
  h('backslash', '\\'),
  h('escaped LIKE', '\\%\\_'),
  h('single quote', "'"),
  h('double quote', '"'),
  h('semicolon', ';'),
  h('SQL tautology', "' OR 1=1 --"),
  h('SQL stacked statement', "'; DROP TABLE listing; --"),
  h('SQL union', '1 UNION SELECT null, version() --'),
  h('SQL comment', '/* */ milk -- '),
  h('dollar quoting', '$$; SELECT 1; $$'),
  h('tsquery syntax', 'a & | ! ( ) :* <->'),
  h('tsquery operators only', '&|!():*<->'),
  h('tsquery weights and distance', 'milk:A* & !bread <2> cheese'),
  h('unbalanced parentheses', '((((('),
  h('100 tsquery operators', '&|'.repeat(50)),
  h('100 quotes', "'".repeat(100)),
  h('100 backslashes', '\\'.repeat(100)),
  h('100 percent signs', '%'.repeat(100)),
  h('regex metacharacters', '.*[(?+{1,}\\'),
  h('Elasticsearch query syntax', 'name:* OR _exists_:x~2 /.*/ AND [a TO z]'),
  h('path traversal', '../../../etc/passwd'),
  h('encoded traversal', '..%2f..%2f..%2fpackage.json'),
  h('invalid percent-encoding', '%ZZ'),
  h('encoded NUL', '%00'),
  h('double-encoded percent', '%2525'),
  h('double-encoded NUL', '%2500'),
  h('truncated percent-encoding', 'milk%2'),
  h('overlong UTF-8 encoded', '%C0%AE%C0%AE%2F'),
  h('JSON text', '{"a":[1,{"b":null}]}'),
  h('HTML', '<script>alert(1)</script>'),
  h('template syntax', '${7*7}{{7*7}}#{7*7}'),
  // Prototype words (issue 29): each as it is; PROTOTYPE_TEXTS has the case and phrase variants.
  ...PROTOTYPE_WORDS.map((w) => h(`prototype word ${w}`, w)),
  h('prototype word in a phrase, capitalised', 'Milk Constructor'),
  h('query string inside', 'a=1&b=2&q=3'),
  h('hash and question mark', '#?#?'),
  h('slash', '/'),
];

/** Integers as text in every odd form (path and query values, string arguments). */
export const NUMERIC_STRINGS: readonly Hostile<string>[] = [
  ' 5', '5 ', '+5', '007', '5.0', '1e3', '0x10', '0b101', '0o7', '-1', '-0', '0', '1_000', '1,000', '.5', '5.',
  '9007199254740993', '2147483647', '2147483648', '-2147483649', '99999999999999999999999999999', 'NaN', 'Infinity',
  '-Infinity', '١٢', '５', '0.0000001', '1e-7', '12abc', 'true', 'null', 'undefined',
].map((s) => h(`numeric text ${JSON.stringify(s)}`, s));

/**
 * Hostile JSON values (GraphQL variables, MCP arguments) as JSON *text*, so numbers JSON can write
 * but JavaScript cannot keep (9007199254740993, 1e400) arrive exactly as a hostile client sends them.
 */
export const HOSTILE_JSON: readonly Hostile<string>[] = [
  ...['5', '-1', '0', '-0', '1.5', '5.0', '1e3', '1e400', '-1e400', '9007199254740993', '2147483647', '2147483648', '-2147483649', '1e-400', '0.1']
    .map((t) => h(`number ${t}`, t)),
  h('true', 'true'),
  h('false', 'false'),
  h('null', 'null'),
  h('empty array', '[]'),
  h('array of number', '[5]'),
  h('array of strings', '["milk","bread"]'),
  h('empty object', '{}'),
  h('object', '{"a":1}'),
  h('__proto__ object', '{"__proto__":{"polluted":1}}'),
  h('constructor object', '{"constructor":{"prototype":{"polluted":1}}}'),
  h('object of prototype words', JSON.stringify(Object.fromEntries(PROTOTYPE_WORDS.map((w) => [w, w])))),
  h('deep array (1,000 levels)', '['.repeat(1000) + ']'.repeat(1000)),
  ...[...HOSTILE_STRINGS, ...NUMERIC_STRINGS].map((s) => h(`string ${s.label}`, JSON.stringify(s.value))),
];

/** A response as the checks see it. */
export interface Seen {
  status: number;
  headers: Record<string, unknown>;
  body: string;
}

/** A stack frame (`at fn (file:1:2)`) or a dependency path: neither may reach a client. */
export const STACK = /\bat .*:\d+:\d+/;
const LEAKS = /node_modules/;

/** Shortens `text` for a problem report. */
export function clip(text: string, max = 300): string {
  const s = JSON.stringify(text);
  return s.length > max ? `${s.slice(0, max)}…(${s.length} chars)` : s;
}

function leaks(seen: Seen): string[] {
  const out: string[] = [];
  if (STACK.test(seen.body)) out.push(`stack trace in body: ${clip(seen.body)}`);
  if (LEAKS.test(seen.body)) out.push(`node_modules in body: ${clip(seen.body)}`);
  return out;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Problems of `value` as the contract's Error body for HTTP `status` (empty when it is one). */
export function errorShapeProblems(value: unknown, status: number): string[] {
  if (!isRecord(value) || !isRecord(value.error)) return ['not an Error body {"error":{...}}'];
  const out: string[] = [];
  const extra = Object.keys(value).filter((k) => k !== 'error');
  if (extra.length) out.push(`Error body has extra top-level keys ${extra.join(', ')}`);
  const e = value.error;
  if (e.status !== status) out.push(`error.status ${JSON.stringify(e.status)} is not the HTTP status ${status}`);
  if (typeof e.message !== 'string' || e.message.trim() === '') out.push('error.message is not a non-empty string');
  const unknown = Object.keys(e).filter((k) => !['status', 'message', 'bulk_data', 'docs'].includes(k));
  if (unknown.length) out.push(`error has unknown keys ${unknown.join(', ')}`);
  return out;
}

/**
 * REST and plain-HTTP rule: never 5xx; every 4xx is a JSON Error body whose `error.status` is the
 * HTTP status; a JSON 2xx parses; no stack trace anywhere.
 */
export function restProblems(seen: Seen): string[] {
  const out = leaks(seen);
  const type = String(seen.headers['content-type'] ?? '');
  if (seen.status >= 500) out.push(`HTTP ${seen.status}`);
  if (seen.status >= 400) {
    if (!type.startsWith('application/json')) out.push(`${seen.status} with Content-Type ${JSON.stringify(type)}`);
    const parsed = parseJson(seen.body);
    if (!parsed.ok) out.push(`${seen.status} body is not JSON: ${clip(seen.body)}`);
    else out.push(...errorShapeProblems(parsed.value, seen.status).map((p) => `${seen.status}: ${p}: ${clip(seen.body)}`));
  } else if (type.startsWith('application/json') && seen.body.length > 0 && !parseJson(seen.body).ok) {
    out.push(`${seen.status} body is not JSON: ${clip(seen.body)}`);
  }
  return out;
}

/**
 * GraphQL rule: a well-formed GraphQL response (200 or 400; `errors` a non-empty array of objects
 * with a string message when present, always present on 400), never 5xx, never
 * INTERNAL_SERVER_ERROR ("Unexpected error.") for bad input, never 429 (the suite spreads its
 * requests over client addresses so the per-field limits do not hide anything). Framework refusals
 * before GraphQL runs (413 body too large, 415, 405…) must be the contract's Error body.
 */
export function graphqlProblems(seen: Seen): string[] {
  const out = leaks(seen);
  if (seen.status >= 500) out.push(`HTTP ${seen.status}`);
  if (seen.status === 429) out.push('HTTP 429: the per-field limit hid this request');
  // An event stream (Accept: text/event-stream) is a GraphQL transport too: status and leaks only.
  if (String(seen.headers['content-type'] ?? '').startsWith('text/event-stream')) return out;
  const parsed = parseJson(seen.body);
  if (!parsed.ok) return [...out, `${seen.status} body is not JSON: ${clip(seen.body)}`];
  const body = parsed.value;
  // Refused by Fastify before GraphQL ran (body not JSON, too large, unknown media type): the Error body.
  if (isRecord(body) && 'error' in body && !('errors' in body)) {
    if (seen.status < 400) out.push(`${seen.status} with an Error body`);
    else out.push(...errorShapeProblems(body, seen.status).map((p) => `${seen.status}: ${p}`));
    return out;
  }
  if (!isRecord(body)) {
    const what = seen.status >= 400 ? 'neither a GraphQL response nor an Error body' : 'not a GraphQL response object';
    return [...out, `${seen.status} body is ${what}: ${clip(seen.body)}`];
  }
  // 405: a mutation over GET (GraphQL over HTTP), answered as a GraphQL response. 404: an
  // automatic persisted query's unknown hash (PersistedQueryNotFound, facades/graphql/apq.ts).
  const apqMiss = seen.status === 404 && Array.isArray(body.errors) && (body.errors as { extensions?: { code?: unknown } }[]).every((e) => e?.extensions?.code === 'PERSISTED_QUERY_NOT_FOUND');
  if (![200, 400, 405].includes(seen.status) && !apqMiss && seen.status < 500) out.push(`unexpected HTTP ${seen.status} for a GraphQL response: ${clip(seen.body)}`);
  const unknown = Object.keys(body).filter((k) => !['data', 'errors', 'extensions'].includes(k));
  if (unknown.length) out.push(`GraphQL response has keys ${unknown.join(', ')}`);
  if (!('data' in body) && !('errors' in body)) out.push(`neither data nor errors: ${clip(seen.body)}`);
  if ('errors' in body) {
    const errors = body.errors;
    if (!Array.isArray(errors) || errors.length === 0) out.push(`errors is not a non-empty array: ${clip(seen.body)}`);
    else {
      for (const e of errors) {
        if (!isRecord(e) || typeof e.message !== 'string' || e.message === '') out.push(`malformed GraphQL error ${clip(JSON.stringify(e))}`);
        else {
          const code = isRecord(e.extensions) ? e.extensions.code : undefined;
          if (code === 'INTERNAL_SERVER_ERROR' || e.message === 'Unexpected error.') out.push(`internal error for bad input: ${clip(JSON.stringify(e))}`);
        }
      }
    }
  } else if (seen.status === 400) out.push(`400 without errors: ${clip(seen.body)}`);
  return out;
}

/** Statuses POST /mcp answers with the contract's Error body rather than a JSON-RPC error (api-spec POST /mcp). */
const MCP_ERROR_BODY_STATUSES = new Set([405, 413, 429]);

/**
 * MCP rule: never 5xx; 202 is empty; otherwise a JSON-RPC 2.0 response object (`jsonrpc` "2.0",
 * an `id`, exactly one of `result`/`error`, an error with an integer code and a string message, never
 * -32603 Internal error) or a batch of them; 405/413/429 in the Error body. A tool result flagged `isError` carries the Error
 * body of a 4xx (a 5xx inside a tool result is a server failure too).
 */
export function mcpProblems(seen: Seen): string[] {
  const out = leaks(seen);
  if (seen.status >= 500) out.push(`HTTP ${seen.status}`);
  if (seen.status === 202) {
    if (seen.body.length) out.push(`202 with a body: ${clip(seen.body)}`);
    return out;
  }
  const parsed = parseJson(seen.body);
  if (!parsed.ok) return [...out, `${seen.status} body is not JSON: ${clip(seen.body)}`];
  // 405/413/429 are the contract's Error body; Fastify's own refusals before the MCP glue runs (a
  // 415 for an empty Content-Type) are too: either form is fine on another 4xx, if well-formed.
  const errorShaped = isRecord(parsed.value) && 'error' in parsed.value && !('jsonrpc' in parsed.value);
  if (MCP_ERROR_BODY_STATUSES.has(seen.status) || (seen.status >= 400 && errorShaped)) {
    out.push(...errorShapeProblems(parsed.value, seen.status).map((p) => `${seen.status}: ${p}`));
    return out;
  }
  const messages = Array.isArray(parsed.value) ? parsed.value : [parsed.value];
  if (Array.isArray(parsed.value) && seen.status !== 200) out.push(`batch answer with HTTP ${seen.status}`);
  for (const m of messages) out.push(...jsonRpcProblems(m, seen.status));
  return out;
}

function jsonRpcProblems(m: unknown, status: number): string[] {
  const text = clip(JSON.stringify(m));
  if (!isRecord(m)) return [`JSON-RPC answer is not an object: ${text}`];
  const out: string[] = [];
  if (m.jsonrpc !== '2.0') out.push(`jsonrpc is ${JSON.stringify(m.jsonrpc)}: ${text}`);
  if (!('id' in m) || !(m.id === null || typeof m.id === 'string' || typeof m.id === 'number')) out.push(`bad id: ${text}`);
  const hasResult = 'result' in m;
  const hasError = 'error' in m;
  if (hasResult === hasError) out.push(`needs exactly one of result/error: ${text}`);
  if (hasError) {
    const e = m.error;
    if (!isRecord(e) || !Number.isInteger(e.code) || typeof e.message !== 'string') out.push(`malformed JSON-RPC error: ${text}`);
    // -32603 "Internal error" is JSON-RPC's 500: bad input must get -32600/-32601/-32602 instead.
    if (isRecord(e) && e.code === -32603) out.push(`JSON-RPC -32603 internal error for bad input (expected -32602 Invalid params): ${text}`);
  } else if (status >= 400) out.push(`HTTP ${status} carrying a result: ${text}`);
  if (hasResult && isRecord(m.result) && m.result.isError === true) out.push(...toolErrorProblems(m.result));
  return out;
}

function toolErrorProblems(result: Record<string, unknown>): string[] {
  const out: string[] = [];
  const content = result.content;
  const text = Array.isArray(content) && isRecord(content[0]) && typeof content[0].text === 'string' ? content[0].text : undefined;
  if (text === undefined) return [`tool error without a text block: ${clip(JSON.stringify(result))}`];
  const parsed = parseJson(text);
  if (!parsed.ok) return [`tool error text is not JSON: ${clip(text)}`];
  const status = isRecord(parsed.value) && isRecord(parsed.value.error) ? parsed.value.error.status : undefined;
  if (typeof status !== 'number' || status < 400 || status >= 500) out.push(`tool error with status ${JSON.stringify(status)}: ${clip(text)}`);
  else out.push(...errorShapeProblems(parsed.value, status).map((p) => `tool error: ${p}`));
  return out;
}

/** Runs `tasks` with at most `width` in flight; resolves when all are done (each task handles its own errors). */
export async function bounded(tasks: readonly (() => Promise<void>)[], width: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) await tasks[next++]();
  };
  await Promise.all(Array.from({ length: Math.min(width, tasks.length) }, worker));
}
