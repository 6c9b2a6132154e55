/** The index method names and their parsing (src/domain/index-method.ts), and INDEX_METHOD in the configuration. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_INDEX_METHOD, INDEX_METHOD_LABELS, INDEX_METHODS, IndexMethodError, isIndexMethod, parseIndexMethod } from '../../src/domain/index-method.js';
import { ConfigError, loadEnv } from '../../src/env.js';
import { ExpectedError } from '../../src/errors.js';

describe('index method names', () => {
  it('are chained-jevons (the default) and geks-jevons, each with a label', () => {
    expect(INDEX_METHODS).toEqual(['chained-jevons', 'geks-jevons']);
    expect(DEFAULT_INDEX_METHOD).toBe('chained-jevons');
    expect([...INDEX_METHOD_LABELS.keys()]).toEqual([...INDEX_METHODS]);
  });
  it('parse as typed (blanks trimmed) and refuse anything else with a message naming the value and the choices', () => {
    expect(parseIndexMethod('geks-jevons')).toBe('geks-jevons');
    expect(parseIndexMethod(' chained-jevons ')).toBe('chained-jevons');
    for (const bad of ['GEKS-Jevons', 'geks', '', 'constructor', '__proto__', 'toString']) {
      expect(isIndexMethod(bad)).toBe(false);
      expect(() => parseIndexMethod(bad, '--method')).toThrow(IndexMethodError);
    }
    expect(() => parseIndexMethod('nope', '--method')).toThrow('--method: unknown index method "nope" (expected one of: chained-jevons, geks-jevons)');
    expect(new IndexMethodError('x')).toBeInstanceOf(ExpectedError);
  });
});

describe('INDEX_METHOD', () => {
  it('defaults to chained-jevons, accepts geks-jevons and refuses other values', () => {
    expect(loadEnv({}).INDEX_METHOD).toBe('chained-jevons');
    expect(loadEnv({ INDEX_METHOD: 'geks-jevons' }).INDEX_METHOD).toBe('geks-jevons');
    expect(() => loadEnv({ INDEX_METHOD: 'geks' })).toThrow(ConfigError);
    expect(() => loadEnv({ INDEX_METHOD: 'geks' })).toThrow(/INDEX_METHOD/);
  });
});
