/**
 * Text that cannot reach PostgreSQL: a NUL character (no PostgreSQL text value can hold one; the
 * server answers "invalid byte sequence", an internal error) and unpaired UTF-16 surrogates (not
 * Unicode text at all; they would be silently replaced on the way to the database). GraphQL's
 * `String` type accepts both, so /graphql refuses them here, before anything runs, as a coded
 * GraphQL error (`BAD_USER_INPUT`) instead of letting them fail as an "Unexpected error." deep in a
 * resolver. The REST and MCP facades refuse them earlier, in their zod parameters
 * (facades/operation.ts); the executor checks its variables with the same rule as a backstop.
 */
import { GraphQLError, Kind, visit, type ArgumentNode, type DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/** `extensions.code` of a refused argument. */
export const BAD_USER_INPUT = 'BAD_USER_INPUT';

/** A NUL, or a surrogate that is not half of a pair. */
const INVALID = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why `text` cannot be stored or searched, or null when it is fine. */
export function invalidTextReason(text: string): string | null {
  const m = INVALID.exec(text);
  if (!m) return null;
  return m[0] === '\u0000' ? 'must not contain NUL characters' : 'must be valid Unicode text (an unpaired surrogate was found)';
}

/**
 * The first string inside `value` (strings, arrays and plain objects, walked depth-first) that
 * {@link invalidTextReason} refuses, as `{ path, reason }` (`path` names it, e.g. `filter.town`),
 * or null when there is none. Iterative, with its own stack: variables are a client's JSON, nested
 * as deep as it likes (a recursive walk ran out of stack at a few thousand levels: issue 29).
 */
export function findInvalidText(value: unknown, path: string): { path: string; reason: string } | null {
  const stack: [unknown, string][] = [[value, path]];
  while (stack.length) {
    const [v, at] = stack.pop()!;
    if (typeof v === 'string') {
      const reason = invalidTextReason(v);
      if (reason) return { path: at, reason };
    } else if (Array.isArray(v)) {
      // Pushed last to first, so the first element is looked at first.
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], `${at}[${i}]`]);
    } else if (v !== null && typeof v === 'object') {
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) stack.push([entries[i][1], `${at}.${entries[i][0]}`]);
    }
  }
  return null;
}

/**
 * The refusal for the first invalid text in the string literals of `document` (named by their
 * argument) or in `variables` (named `$name`), or null when all text is valid.
 */
export function invalidTextError(document: DocumentNode, variables: Record<string, unknown> | null | undefined): GraphQLError | null {
  let found: { path: string; reason: string } | null = null;
  const argumentNames: string[] = [];
  visit(document, {
    Argument: {
      enter: (node: ArgumentNode) => {
        argumentNames.push(node.name.value);
      },
      leave: () => {
        argumentNames.pop();
      },
    },
    StringValue: (node) => {
      if (found) return;
      const reason = invalidTextReason(node.value);
      if (reason) found = { path: argumentNames.at(-1) ?? 'string literal', reason };
    },
  });
  if (!found && variables) {
    for (const [name, value] of Object.entries(variables)) {
      found = findInvalidText(value, `$${name}`);
      if (found) break;
    }
  }
  if (!found) return null;
  const { path, reason } = found as { path: string; reason: string };
  return new GraphQLError(`Invalid argument "${path}": ${reason}`, {
    // `spec: true`: like a validation error, 400 for application/graphql-response+json and 200 for
    // application/json (GraphQL over HTTP); Yoga strips `http` from the body.
    extensions: { code: BAD_USER_INPUT, http: { status: 400, spec: true } },
  });
}

/** Yoga plugin refusing invalid text in string arguments and variables before execution. */
export function textArgumentsPlugin(): Plugin {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      if (args.document.kind !== Kind.DOCUMENT) return;
      const error = invalidTextError(args.document, args.variableValues as Record<string, unknown> | undefined);
      if (error) setResultAndStopExecution({ errors: [error] });
    },
  };
}
