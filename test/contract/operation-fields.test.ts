/**
 * One place lists a resource's wire fields: the contract's zod schemas (facades/resources.ts, the
 * api-spec resources that OpenAPI, the MCP output schemas and llms-full.txt are generated from).
 * The persisted documents and fragments are checked against them here, per registry operation,
 * without a database: a sample result with every field the document selects (after aliases and
 * fragment spreads; lists of one element, nullable fields present) goes through the operation's
 * `shape` with every property read recorded, and
 *   - the shaped body has exactly the fields of the operation's `result` schema at every level (a
 *     contract field the document does not produce, or a selected field that leaks into the body
 *     without being in the contract, fails), and
 *   - every field the document selects is read on its way to the body (a selected field no shaper
 *     uses, i.e. wasted work in the graph, fails).
 * The compiler covers the other direction for code: a shaper cannot read a field its document does
 * not select (facades/generated/operations.ts), nor return a body missing a contract field.
 */
import fs from 'node:fs';
import {
  buildSchema, getNullableType, isEnumType, isListType, isObjectType, isScalarType, Kind, parse,
  type DocumentNode, type FragmentDefinitionNode, type GraphQLObjectType, type GraphQLOutputType, type GraphQLSchema,
  type OperationDefinitionNode, type SelectionSetNode,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { AnyOperation } from '../../facades/operation.js';
import { documentText, operations } from '../../facades/operations.js';
import { SDL_PATH } from '../../src/graph/print.js';

/** Fields selected only for their effect, not their value: healthz's `health` raises UNAVAILABLE. */
const SELECTED_FOR_EFFECT: Record<string, string[]> = { healthz: ['health'] };

const SCALARS: Record<string, unknown> = {
  Int: 1, Float: 1.5, String: 'text', Boolean: true, ID: '1', Day: '2024-01-02', DateTime: '2024-01-02T03:04:05Z', SafeInt: 9414742351053,
};

const sdl = buildSchema(fs.readFileSync(SDL_PATH, 'utf8'));

/** A sample response for `set` on `type`, keyed by response name; `leaves` collects selected leaf paths. */
function sampleSelection(
  schema: GraphQLSchema, set: SelectionSetNode, type: GraphQLObjectType, fragments: Map<string, FragmentDefinitionNode>, path: string, leaves: Set<string>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const sel of set.selections) {
    if (sel.kind === Kind.FIELD) {
      const key = sel.alias?.value ?? sel.name.value;
      const field = type.getFields()[sel.name.value];
      if (!field) throw new Error(`${type.name}.${sel.name.value} is not in the SDL`);
      out[key] = sampleValue(schema, field.type, sel.selectionSet, fragments, path ? `${path}.${key}` : key, leaves);
    } else {
      const frag = sel.kind === Kind.FRAGMENT_SPREAD ? fragments.get(sel.name.value) : sel;
      if (!frag) throw new Error(`unknown fragment`);
      const on = frag.typeCondition ? schema.getType(frag.typeCondition.name.value) : type;
      Object.assign(out, sampleSelection(schema, frag.selectionSet, on as GraphQLObjectType, fragments, path, leaves));
    }
  }
  return out;
}

function sampleValue(
  schema: GraphQLSchema, type: GraphQLOutputType, set: SelectionSetNode | undefined, fragments: Map<string, FragmentDefinitionNode>, path: string, leaves: Set<string>,
): unknown {
  const t = getNullableType(type);
  if (isListType(t)) return [sampleValue(schema, t.ofType, set, fragments, `${path}[]`, leaves)];
  if (isObjectType(t)) return sampleSelection(schema, set!, t, fragments, path, leaves);
  leaves.add(path.replace(/(\[\])+$/, ''));
  if (isEnumType(t)) return t.getValues()[0].value;
  if (isScalarType(t) && t.name in SCALARS) return SCALARS[t.name];
  throw new Error(`no sample for ${String(t)} at ${path}`);
}

/** The document's sample result and its selected leaf paths. */
function sample(doc: DocumentNode): { data: Record<string, unknown>; leaves: Set<string> } {
  const fragments = new Map(
    doc.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]),
  );
  const op = doc.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
  const leaves = new Set<string>();
  return { data: sampleSelection(sdl, op.selectionSet, sdl.getQueryType()!, fragments, '', leaves), leaves };
}

/** `value` behind proxies that record every own property read, by path (array indexes as `[]`). */
function tracked<T>(value: T, path: string, read: Set<string>): T {
  if (value === null || typeof value !== 'object') return value;
  return new Proxy(value as object, {
    get(target, key, receiver) {
      const v = Reflect.get(target, key, receiver);
      if (typeof key !== 'string' || !Object.hasOwn(target, key)) return v;
      const child = Array.isArray(target) ? `${path}[]` : path ? `${path}.${key}` : key;
      read.add(child.replace(/(\[\])+$/, ''));
      return tracked(v, child, read);
    },
  }) as T;
}

type Def = { type: string; shape?: Record<string, z.ZodType>; element?: z.ZodType; items?: z.ZodType[]; innerType?: z.ZodType; valueType?: z.ZodType; options?: z.ZodType[]; in?: z.ZodType };
const def = (s: z.ZodType) => (s as unknown as { _zod: { def: Def } })._zod.def;

/**
 * Where `value`'s fields differ from `schema`'s at every level: `+path` for a field the body has
 * and the contract does not, `-path` for a contract field the body lacks. Reads every field.
 */
function differences(value: unknown, schema: z.ZodType, path: string): string[] {
  const d = def(schema);
  switch (d.type) {
    case 'nullable':
    case 'optional':
    case 'default':
      return value === null || value === undefined ? [] : differences(value, d.innerType!, path);
    case 'pipe':
      return differences(value, d.in!, path);
    case 'union': {
      const each = d.options!.map((o) => differences(value, o, path));
      return each.reduce((a, b) => (b.length < a.length ? b : a));
    }
    case 'array':
      return Array.isArray(value) ? value.flatMap((v) => differences(v, d.element!, `${path}[]`)) : [`~${path} (not an array)`];
    case 'tuple': {
      // A fixed-length array (Compare's [level, items] pairs): each position against its schema.
      if (!Array.isArray(value)) return [`~${path} (not an array)`];
      const items = d.items!;
      return [
        ...value.flatMap((v, i) => (i < items.length ? differences(v, items[i], `${path}[${i}]`) : [`+${path}[${i}]`])),
        ...items.slice(value.length).map((_, i) => `-${path}[${value.length + i}]`),
      ];
    }
    case 'record':
      return value && typeof value === 'object' ? Object.keys(value).flatMap((k) => differences((value as Record<string, unknown>)[k], d.valueType!, `${path}{}`)) : [`~${path} (not an object)`];
    case 'object': {
      if (!value || typeof value !== 'object' || Array.isArray(value)) return [`~${path} (not an object)`];
      const body = value as Record<string, unknown>;
      const shape = d.shape!;
      const at = (k: string) => (path ? `${path}.${k}` : k);
      return [
        ...Object.keys(body).filter((k) => !(k in shape)).map((k) => `+${at(k)}`),
        ...Object.keys(shape).filter((k) => !(k in body)).map((k) => `-${at(k)}`),
        ...Object.keys(shape).filter((k) => k in body).flatMap((k) => differences(body[k], shape[k], at(k))),
      ];
    }
    default:
      return value !== null && typeof value === 'object' ? [`~${path} (an object where the contract has ${d.type})`] : [];
  }
}

/** What is wrong with `op`'s document (given as text) against its contract: field differences and unread selections. */
function check(op: AnyOperation, text: string): { differences: string[]; unread: string[] } {
  const { data, leaves } = sample(parse(text));
  const read = new Set<string>();
  const body = op.shape(tracked(data, '', read), {} as never);
  const diffs = differences(body, op.result, '');
  const exempt = new Set(SELECTED_FOR_EFFECT[op.name] ?? []);
  return { differences: diffs, unread: [...leaves].filter((l) => !read.has(l) && !exempt.has(l)).sort() };
}

describe('documents select exactly the contract fields (facades/resources.ts is the one list)', () => {
  it.each(operations.map((op) => [op.name, op] as const))('%s', (_name, op) => {
    const found = check(op, documentText(op.name));
    expect(found.differences, 'body fields vs the zod result schema (+ extra, - missing)').toEqual([]);
    expect(found.unread, 'selected by the document but never used').toEqual([]);
  });

  it('catches a selected field outside the contract, a contract field not selected, and an unused selection', () => {
    const retailers = operations.find((o) => o.name === 'list_retailers')!;
    const extra = check(retailers, documentText('list_retailers').replace('slug\n', 'slug\n    website\n'));
    expect(extra.differences).toEqual(['+[].website']);
    const missing = check(retailers, documentText('list_retailers').replace('last_run: lastRun\n', ''));
    expect(missing.differences).toEqual(['-[].last_run']);
    const listings = operations.find((o) => o.name === 'search_listings')!;
    const unused = check(listings, documentText('search_listings').replace('available\n', 'available\n  weighable\n'));
    expect(unused.differences).toEqual([]);
    expect(unused.unread).toEqual(['searchListings[].weighable']);
    // A fixed-length pair (Compare's [level, items]) with a position missing or added.
    const compare = operations.find((o) => o.name === 'compare_retailers')!;
    const pairs = (f: (level: number, items: number) => number[]) => ({
      ...compare,
      shape: (data: never, params: never) => {
        const body = compare.shape(data, params) as { headline: Record<string, [number, number]> };
        return { ...body, headline: Object.fromEntries(Object.entries(body.headline).map(([k, [l, i]]) => [k, f(l, i)])) };
      },
    });
    expect(check(pairs((l) => [l]), documentText('compare_retailers')).differences).toEqual(['-headline{}[1]']);
    expect(check(pairs((l, i) => [l, i, 0]), documentText('compare_retailers')).differences).toEqual(['+headline{}[2]']);
    expect(check(compare, documentText('compare_retailers')).differences).toEqual([]);
  });
});
