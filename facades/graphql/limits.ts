/**
 * Shape limits of /graphql documents (graphql-armor): depth, cost, aliases, tokens, directives, and
 * no "Did you mean" field suggestions in production. They are checked while parsing and validating,
 * before anything runs, so an oversized document costs the database nothing.
 *
 * Every figure is set against the persisted documents of the facades (schema/operations/*.graphql;
 * test/integration/graphql.test.ts runs each of them through /graphql). Measured with these rules,
 * they reach cost 157 (get_product; get_store 153), 19 aliases (get_listing) and one directive
 * (get_basket's `@include`), and stay well under the depth and token limits (test/integration/
 * graphql.test.ts runs each one within them). GraphiQL's introspection query is 163 tokens (its
 * depth and cost are not counted).
 */
import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { GraphQLError, type ValidationContext } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/**
 * Deepest field nesting. The graph has cycles (Listing.product → Product.offers → Offer.listing →
 * …), so nesting is what an abusive document grows. 6 leaves the persisted documents (4) two levels
 * and admits the deepest useful walk, searchListings → product → offers → listing → stores → price,
 * and one Relay connection level with its leaves (`edges { node { … } }` are two levels):
 * retailers → stores → edges → node → levelSeries → level, or product → listings → edges → node →
 * history → price. A connection inside a connection's node is refused (it would multiply pages).
 */
export const MAX_DEPTH = 6;

/**
 * Highest graphql-armor cost (object 2, scalar 1, each level ×1.5; list sizes are not counted, but
 * a Relay connection's literal `first` multiplies its selection).
 *
 * The budget of the graph for dashboards (issue 20; docs/http.md "The graph for dashboards"): the
 * persisted documents cost at most 157 (get_product) and a full listing (stores, stats) about 64;
 * the issue's example `{ retailers { slug stores(first: 5) { edges { node { id level } } } }
 * indexSeries(group: 0) { day raw } }` costs 130; a page of 100 stores with seven fields under the
 * chains about 5,000; the dashboard document of test/integration/graph-connections.test.ts (index
 * series and groups, 50 stores per chain, a product's listings with their histories, every shelf's
 * first three products, ten deals) 2,811. 8,000 admits any one of those, or several panels
 * together, and refuses three 100-store pages in one document. A `first` given by a variable counts
 * once (graphql-armor sees no value); the page ceiling (100 a connection, src/graph/connections.ts)
 * and the depth limit (one connection level below a list) bound it, and without page multipliers
 * the token and alias limits bind before this one.
 */
export const MAX_COST = 8_000;

/**
 * Most aliases in one operation. The persisted documents alias for snake_case names (19 in
 * get_listing); an alias can also repeat an expensive root field, which the cost limit and the
 * per-field rate limits (./field-limits.ts) also bound. 30 keeps half again of headroom.
 */
export const MAX_ALIASES = 30;

/**
 * Most lexical tokens in a document, checked while parsing (so a huge body is refused before it
 * is built into a tree). 1,000 is six times GraphiQL's introspection query and eight times the
 * largest persisted document.
 */
export const MAX_TOKENS = 1_000;

/** Most directives in one operation. The persisted documents use none; 10 leaves room for @include/@skip. */
export const MAX_DIRECTIVES = 10;

/** `extensions.code` of a document refused by one of these limits. */
export const LIMIT_CODE = 'QUERY_TOO_COMPLEX';

/**
 * A refusal as a GraphQL error carrying {@link LIMIT_CODE}, without graphql-armor's misleading
 * "Syntax Error: " prefix (the document's syntax is fine; it is too big).
 */
function refusal(error: GraphQLError): GraphQLError {
  return new GraphQLError(error.message.replace(/^Syntax Error: /, ''), { extensions: { code: LIMIT_CODE } });
}

/** Validation-time limits report the refusal beside any other validation error. */
const reported = {
  propagateOnRejection: false,
  onReject: [(ctx: ValidationContext | null, error: GraphQLError) => ctx?.reportError(refusal(error))],
};

/** The token limit is checked by the lexer, before a validation context exists: it throws. */
const thrown = {
  propagateOnRejection: false,
  onReject: [
    (_ctx: ValidationContext | null, error: GraphQLError) => {
      throw refusal(error);
    },
  ],
};

/**
 * The graphql-armor plugin with the limits above. Field suggestions ("Did you mean …?") are masked
 * in production (they echo schema names into error messages; harmless while introspection is open,
 * but nothing a production error needs) and kept elsewhere, where they help whoever types the query.
 */
export function armorPlugin({ production }: { production: boolean }): Plugin {
  return EnvelopArmorPlugin({
    // Fragments count as the fields they hold, not as an extra level (the persisted documents share
    // selections through schema/fragments.graphql).
    maxDepth: { n: MAX_DEPTH, flattenFragments: true, ...reported },
    costLimit: { maxCost: MAX_COST, flattenFragments: true, ...reported },
    maxAliases: { n: MAX_ALIASES, ...reported },
    maxDirectives: { n: MAX_DIRECTIVES, ...reported },
    maxTokens: { n: MAX_TOKENS, ...thrown },
    blockFieldSuggestion: { enabled: production },
  }) as Plugin;
}
