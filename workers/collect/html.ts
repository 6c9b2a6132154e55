/**
 * The one HTML parser of the collectors (issue 27 item 4): The Warehouse's product grid and the
 * MyFoodLink storefronts (FreshChoice, SuperValue) are read through htmlparser2's DOM, never by
 * regular expressions over the markup. JSON responses stay parsed as JSON (http.ts, the runner).
 *
 * Why htmlparser2: it is the parser that cheerio itself is built on (fb55, actively released), small
 * (five packages, no network client), ESM with its own types, and forgiving — it builds a tree from
 * any input and never throws, so a broken page becomes "the element is missing", which the collectors
 * turn into a MalformedPage with a clear message. It decodes every HTML5 character reference in
 * attribute values and text, and reads attributes in any order, quoted with `"` or `'` or unquoted,
 * with tag and attribute names in any case — the harmless markup changes a regular expression over
 * the page text does not survive. Its re-exported DomUtils (findAll, findOne, getAttributeValue)
 * is all the querying needed, so no CSS-selector engine (css-select, cheerio) is added; the helpers
 * below name the few queries the collectors make (by tag, by class token, by attribute).
 */
import { DomUtils, ElementType, parseDocument } from 'htmlparser2';

/** A parsed page (htmlparser2's Document). */
export type HtmlDocument = ReturnType<typeof parseDocument>;
/** One element of a parsed page (domhandler's Element). */
export type HtmlElement = NonNullable<ReturnType<typeof DomUtils.findOne>>;
/** Where a query looks: a whole page or below one element. */
export type HtmlScope = HtmlDocument | HtmlElement;
type Node = HtmlDocument['children'][number];

/**
 * Parses an HTML page or fragment into a tree (HTML mode: names lower-cased, character references
 * decoded). Never throws: text that is not HTML comes back as a document with no element.
 */
export function parseHtml(html: string): HtmlDocument {
  return parseDocument(html);
}

/** Whether a parsed body holds at least one element (a JSON error or a plain-text body holds none). */
export function hasElements(doc: HtmlDocument): boolean {
  return DomUtils.findOne(() => true, doc.children) !== null;
}

/** The class tokens of an element (`class` split on whitespace). */
export function classList(el: HtmlElement): string[] {
  return (el.attribs.class ?? '').split(/\s+/).filter(Boolean);
}

/** Whether an element carries the class token `name` (exact token, as CSS `.name`). */
export function hasClass(el: HtmlElement, name: string): boolean {
  return classList(el).includes(name);
}

/** The decoded value of an attribute; null when the element does not have it. */
export function attr(el: HtmlElement, name: string): string | null {
  return DomUtils.getAttributeValue(el, name) ?? null;
}

/** What an element test may ask: its tag name, a class token, a predicate of its own. */
export interface ElementQuery {
  /** Tag name(s), lower case (any tag when absent). */
  tag?: string | readonly string[];
  /** A class token the element carries. */
  cls?: string;
  /** Any further test. */
  where?: (el: HtmlElement) => boolean;
}

function test(q: ElementQuery): (el: HtmlElement) => boolean {
  const tags = q.tag === undefined ? null : typeof q.tag === 'string' ? [q.tag] : q.tag;
  return (el) => (tags === null || tags.includes(el.name)) && (q.cls === undefined || hasClass(el, q.cls)) && (q.where === undefined || q.where(el));
}

const below = (scope: HtmlScope): Node[] => scope.children;

/** Every element below `scope` (not `scope` itself) that passes the query, in document order. */
export function findAll(scope: HtmlScope, q: ElementQuery): HtmlElement[] {
  return DomUtils.findAll(test(q), below(scope));
}

/** The first element below `scope` (document order) that passes the query; null when none does. */
export function findFirst(scope: HtmlScope, q: ElementQuery): HtmlElement | null {
  return DomUtils.findOne(test(q), below(scope), true);
}

/** Elements whose line breaks the text keeps as a space (blocks, `br`, table cells, list items). */
const BREAKS = new Set([
  'address', 'article', 'aside', 'blockquote', 'br', 'dd', 'div', 'dl', 'dt', 'figcaption', 'figure', 'footer', 'form',
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hr', 'li', 'main', 'nav', 'ol', 'p', 'pre', 'section', 'table', 'td', 'th', 'tr', 'ul',
]);

function collect(nodes: readonly Node[], out: string[]): void {
  for (const n of nodes) {
    if (n.type === ElementType.Text) out.push((n as { data: string }).data);
    else if (n.type === ElementType.Tag) {
      const el = n as HtmlElement;
      if (el.name === 'template') continue;
      const brk = BREAKS.has(el.name);
      if (brk) out.push(' ');
      collect(el.children, out);
      if (brk) out.push(' ');
    }
    // scripts, styles, comments, directives: not text a shopper reads
  }
}

/**
 * The text a shopper reads in an element or page: text nodes in order (references already
 * decoded), a space where a block or `<br>` breaks the line, scripts and styles left out,
 * whitespace collapsed and trimmed.
 */
export function textOf(scope: HtmlScope): string {
  const out: string[] = [];
  collect(below(scope), out);
  return out.join('').replace(/\s+/g, ' ').trim();
}

/** The text of the first element the query finds below `scope`; null when none is found or it is blank. */
export function textAt(scope: HtmlScope, q: ElementQuery): string | null {
  const el = findFirst(scope, q);
  if (el === null) return null;
  return textOf(el) || null;
}

/** The text of an HTML fragment given as a string (a JSON field holding `&amp;`, say): see {@link textOf}. */
export function htmlText(fragment: string): string {
  return textOf(parseHtml(fragment));
}

/**
 * The JSON value a page's inline script assigns to `name` (`window.gtmDataLayer = [...]`): the
 * first `<script>` whose text holds `name =` followed by an array or object literal, read to its
 * matching bracket (brackets inside strings ignored) and parsed as JSON. Undefined when no script
 * assigns it or the literal is not JSON (analytics only: callers go on without it).
 */
export function scriptJson(doc: HtmlDocument, name: string): unknown {
  for (const script of findAll(doc, { tag: 'script' })) {
    const js = DomUtils.textContent(script);
    let at = js.indexOf(name);
    while (at !== -1) {
      const rest = js.slice(at + name.length);
      const m = /^\s*=\s*/.exec(rest);
      if (m) {
        const literal = balanced(rest.slice(m[0].length));
        if (literal !== null) {
          try {
            return JSON.parse(literal) as unknown;
          } catch {
            return undefined;
          }
        }
      }
      at = js.indexOf(name, at + name.length);
    }
  }
  return undefined;
}

/** The leading `[...]` or `{...}` of `s` up to its matching bracket, strings skipped; null when unbalanced. */
function balanced(s: string): string | null {
  if (s[0] !== '[' && s[0] !== '{') return null;
  let depth = 0;
  let quote: string | null = null;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (quote !== null) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[' || c === '{') depth++;
    else if (c === ']' || c === '}') {
      depth--;
      if (depth === 0) return s.slice(0, i + 1);
    }
  }
  return null;
}
