/**
 * Issue 29: the /graphql request parameters a client controls. `findInvalidText` walks variables
 * without recursion (it ran out of stack at a few thousand levels: HTTP 500), `jsonDepthExceeds`
 * measures nesting without recursion, and `persistedQueryProblem` names a malformed
 * `extensions.persistedQuery` (the APQ plugin ignored it and answered 200).
 */
import { describe, expect, it } from 'vitest';
import { persistedQueryProblem } from '../../facades/graphql/apq.js';
import { jsonDepthExceeds, MAX_JSON_DEPTH } from '../../facades/graphql/depth.js';
import { findInvalidText } from '../../facades/graphql/text.js';

/** `levels` arrays around `inner`, built without JSON.parse. */
const nested = (levels: number, inner: unknown): unknown => {
  let v = inner;
  for (let i = 0; i < levels; i++) v = [v];
  return v;
};

describe('findInvalidText', () => {
  it('walks 200,000 levels without running out of stack, and names the invalid string', () => {
    expect(findInvalidText(nested(200_000, 'ok'), '$v')).toBeNull();
    const deepObject = JSON.parse(`${'{"a":'.repeat(200_000)}"x\\u0000"${'}'.repeat(200_000)}`);
    const found = findInvalidText(deepObject, '$v');
    expect(found?.reason).toMatch(/NUL/);
    expect(found?.path.startsWith('$v.a.a.a')).toBe(true);
  });

  it('finds the first invalid string depth-first, in document order', () => {
    const value = { a: ['ok', { b: 'x\u0000' }], c: '\ud800' };
    expect(findInvalidText(value, '$f')).toEqual({ path: '$f.a[1].b', reason: 'must not contain NUL characters' });
    expect(findInvalidText({ c: '\ud800', a: 'x\u0000' }, '$f')).toEqual({ path: '$f.c', reason: 'must be valid Unicode text (an unpaired surrogate was found)' });
    expect(findInvalidText(['a', 'b', ['c', 'd\u0000']], '$l')?.path).toBe('$l[2][1]');
    expect(findInvalidText({ a: 1, b: null, c: true, d: 'fine' }, '$o')).toBeNull();
  });
});

describe('jsonDepthExceeds', () => {
  it('counts nested arrays and objects, the parameter object itself as level 1', () => {
    expect(jsonDepthExceeds(undefined, 1)).toBe(false);
    expect(jsonDepthExceeds('x', 0)).toBe(false);
    expect(jsonDepthExceeds({ v: 'x' }, 1)).toBe(false);
    expect(jsonDepthExceeds({ v: [1] }, 1)).toBe(true);
    expect(jsonDepthExceeds({ v: [1] }, 2)).toBe(false);
    expect(jsonDepthExceeds({ v: nested(MAX_JSON_DEPTH - 1, 1) }, MAX_JSON_DEPTH)).toBe(false);
    expect(jsonDepthExceeds({ v: nested(MAX_JSON_DEPTH, 1) }, MAX_JSON_DEPTH)).toBe(true);
    // A wide, shallow value is fine; the deep branch is found wherever it is.
    expect(jsonDepthExceeds({ a: Array.from({ length: 100_000 }, (_, i) => i), b: { c: [[]] } }, 4)).toBe(false);
    expect(jsonDepthExceeds({ a: Array.from({ length: 1000 }, () => ({})), b: { c: [[[]]] } }, 4)).toBe(true);
  });

  it('measures 200,000 levels without running out of stack', () => {
    expect(jsonDepthExceeds(nested(200_000, null), MAX_JSON_DEPTH)).toBe(true);
    expect(jsonDepthExceeds(JSON.parse(`${'{"a":'.repeat(200_000)}1${'}'.repeat(200_000)}`), MAX_JSON_DEPTH)).toBe(true);
  });
});

describe('persistedQueryProblem', () => {
  const hash = 'a'.repeat(64);
  it('accepts no extensions, extensions without persistedQuery, and a well-formed one', () => {
    for (const ok of [undefined, null, {}, { other: 1 }, { persistedQuery: { version: 1, sha256Hash: hash } }]) expect(persistedQueryProblem(ok), JSON.stringify(ok)).toBeNull();
  });

  it('names every malformed form', () => {
    expect(persistedQueryProblem(5)).toBe('Malformed request: extensions must be a JSON object');
    expect(persistedQueryProblem([])).toBe('Malformed request: extensions must be a JSON object');
    expect(persistedQueryProblem('x')).toBe('Malformed request: extensions must be a JSON object');
    for (const pq of [1, null, 'x', [], true]) expect(persistedQueryProblem({ persistedQuery: pq })).toMatch(/^Malformed persisted query: extensions\.persistedQuery must be an object/);
    for (const version of [2, '1', 0, null, undefined]) expect(persistedQueryProblem({ persistedQuery: { version, sha256Hash: hash } })).toBe('Unsupported persisted query version: only version 1 is supported');
    for (const sha256Hash of ['zz', 'A'.repeat(64), 'a'.repeat(63), 'a'.repeat(65), 5, null, undefined]) {
      expect(persistedQueryProblem({ persistedQuery: { version: 1, sha256Hash } })).toMatch(/^Malformed persisted query: sha256Hash must be/);
    }
  });
});
