/**
 * Nesting depth of a /graphql request's JSON parameters (issue 29 item 2). `variables` and
 * `extensions` are whatever JSON a client sends; JSON.parse reads 100,000 levels happily, but any
 * recursive walk of them afterwards (ours, graphql-js's coercion, a plugin's) runs out of stack
 * somewhere past a few thousand and answers 500. No variable of this schema is more than a few
 * levels deep, so a request whose `variables` or `extensions` nest deeper than
 * {@link MAX_JSON_DEPTH} is refused before anything else reads them: HTTP 400, a GraphQL error
 * with code BAD_REQUEST. The depth is measured without recursion ({@link jsonDepthExceeds}).
 */
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/**
 * Deepest nesting of arrays and objects accepted in `variables` or `extensions`, the parameter
 * object itself counting as level 1 (`{"v":[1]}` is 2 deep). The schema's deepest input (a
 * shopping list's items) is 3.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether arrays and objects nest more than `max` levels in `value` (a scalar is 0 deep, `[]` and
 * `{}` 1). Iterative: safe on any depth JSON.parse can produce, and it stops at the first branch
 * that is too deep.
 */
export function jsonDepthExceeds(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}

/** The refusal of a request whose `parameter` (variables or extensions) nests too deep. */
export function tooDeepError(parameter: 'variables' | 'extensions'): GraphQLError {
  return new GraphQLError(`Malformed request: ${parameter} nest deeper than ${MAX_JSON_DEPTH} levels`, {
    extensions: { code: 'BAD_REQUEST', http: { status: 400 } },
  });
}

/**
 * Yoga plugin refusing, before any other plugin reads them (list it first), `variables` or
 * `extensions` nested deeper than {@link MAX_JSON_DEPTH}: HTTP 400, BAD_REQUEST.
 */
export function jsonDepthPlugin(): Plugin {
  return {
    onParams({ params }) {
      if (jsonDepthExceeds(params.variables, MAX_JSON_DEPTH)) throw tooDeepError('variables');
      if (jsonDepthExceeds(params.extensions, MAX_JSON_DEPTH)) throw tooDeepError('extensions');
    },
  };
}
