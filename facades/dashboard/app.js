// The dashboard (issue 20 #2; shrinkflation: issue 32 item 4): its panels are each ONE GraphQL query (facades/dashboard/queries/*.graphql)
// sent to /graphql, shown beside its panel ("view query") and linked to GraphiQL with the query
// prefilled (/graphql?query=...&variables=...). Plain ES module, no build step; uPlot comes from
// this server (/assets/uplot/<version>/, see the import map in index.html). Each panel says how
// far it got in `data-state` (loading, ready, empty, error) and how many rows it shows in
// `data-count`, which the browser test (test/e2e/pages.test.ts) reads.
//
// How old every fact is (issue 26): the banner and each chain's "prices as of" come from
// GET /api/v1/status (freshness.js; nothing shown when it does not answer), the index lines break
// on days nothing was observed (coverage 0: facts.js's lineSegments) with the gaps shaded and
// named under the chart, and the deals say the day they were seen.
import uPlot from 'uplot';
import { dayAfter, dealsAsOf, drawnValues, estimateSentence, formatChange, formatCount, formatDay, formatMonth, gapSentences, lineSegments, segmentGaps } from './facts.js';
import { followFreshness, loadStatus } from './freshness.js';

const CHAIN_COLOURS = {
  woolworths: '#178841',
  paknsave: '#d4a300',
  newworld: '#d7262e',
  freshchoice: '#4f8fd1',
  supervalue: '#8e5bc9',
  warehouse: '#e26b12',
};
const PALETTE = ['#0b6e4f', '#d7262e', '#4f8fd1', '#d4a300', '#8e5bc9', '#e26b12', '#555'];
// Object.hasOwn: a slug is data, and CHAIN_COLOURS.constructor would be Object itself.
const colourOf = (slug, i = 0) => (Object.hasOwn(CHAIN_COLOURS, slug) ? CHAIN_COLOURS[slug] : PALETTE[i % PALETTE.length]);

/** The text of a panel's query file. */
async function queryText(name) {
  const r = await fetch(`/dashboard/queries/${name}.graphql`);
  if (!r.ok) throw new Error(`query ${name}: HTTP ${r.status}`);
  return r.text();
}

/** Tries of one panel query the server refuses as busy. */
const BUSY_TRIES = 4;

/** POSTs one query to /graphql; the data, or an Error with the GraphQL messages. */
async function graphql(query, variables) {
  let r;
  // The page's own panels ask at once and may queue behind each other: a query the server refuses
  // as busy (503, Retry-After) is asked again after the wait it names (at most 10 s), BUSY_TRIES in all.
  for (let attempt = 1; ; attempt++) {
    r = await fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json' },
      body: JSON.stringify({ query, variables }),
    });
    if (r.status !== 503 || attempt >= BUSY_TRIES) break;
    const wait = Math.min(10, Math.max(1, Number(r.headers.get('retry-after')) || 1));
    await new Promise((done) => setTimeout(done, wait * 1000));
  }
  const body = await r.json();
  if (body.errors?.length) throw new Error(body.errors.map((e) => e.message).join('; '));
  if (!r.ok) throw new Error(`HTTP ${r.status}`);
  return body.data;
}

/** GraphiQL with `query` (and `variables`) prefilled. */
function graphiqlHref(query, variables) {
  const params = new URLSearchParams({ query });
  if (variables && Object.keys(variables).length) params.set('variables', JSON.stringify(variables, null, 2));
  return `/graphql?${params}`;
}

const el = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') node.className = v;
    else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const c of children) if (c != null) node.append(c);
  return node;
};
const money = (cents) => (cents == null ? '—' : `$${(cents / 100).toFixed(2)}`);
const dayToSeconds = (day) => Date.UTC(Number(day.slice(0, 4)), Number(day.slice(5, 7)) - 1, Number(day.slice(8, 10))) / 1000;
const utc = (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC');

/** One panel: its element, its query (shown and linked) and its state. */
class Panel {
  constructor(name, file) {
    this.el = document.querySelector(`[data-panel="${name}"]`);
    this.file = file;
    this.pre = this.el.querySelector('pre.query');
    this.link = this.el.querySelector('a.open-graphiql');
    this.el.querySelector('button.view-query').addEventListener('click', (e) => {
      this.pre.hidden = !this.pre.hidden;
      e.target.textContent = this.pre.hidden ? 'view query' : 'hide query';
    });
  }

  /** Loads the query file once. */
  async query() {
    this.text ??= await queryText(this.file);
    return this.text;
  }

  /** Runs the panel's query with `variables`, showing exactly what was sent. */
  async run(variables = {}) {
    const query = await this.query();
    this.pre.textContent = Object.keys(variables).length ? `${query}\n# variables\n${JSON.stringify(variables, null, 2)}` : query;
    this.link.href = graphiqlHref(query, variables);
    this.state('loading');
    return graphql(query, variables);
  }

  state(s, count) {
    this.el.dataset.state = s;
    if (count != null) this.el.dataset.count = String(count);
  }

  fail(target, error) {
    target.replaceChildren(el('p', { class: 'error' }, `Could not load: ${error.message}`));
    this.state('error', 0);
  }
}

/** A uPlot chart in `target`, as wide as it. */
function chart(target, opts, data) {
  target.replaceChildren();
  const width = Math.max(320, target.clientWidth || 520);
  return new uPlot({ width, height: 260, tzDate: utc, ...opts }, data, target);
}

/**
 * A uPlot hook shading `gaps` (day ranges with nothing observed) across the plot, labelled when
 * wide enough: the broken line's hole is shown, not just left blank.
 */
function shadeGaps(gaps) {
  return (u) => {
    const { ctx } = u;
    const { top, height } = u.bbox;
    ctx.save();
    for (const g of gaps) {
      // From the last observed day before the gap to the first one after it: the line's hole.
      const x0 = u.valToPos(dayToSeconds(g.from) - 86_400, 'x', true);
      const x1 = u.valToPos(dayToSeconds(g.to) + 86_400, 'x', true);
      ctx.fillStyle = 'rgba(95, 107, 115, 0.12)';
      ctx.fillRect(x0, top, x1 - x0, height);
      if (x1 - x0 > 90 * uPlot.pxRatio) {
        ctx.fillStyle = '#5f6b73';
        ctx.font = `${12 * uPlot.pxRatio}px system-ui, sans-serif`;
        ctx.textAlign = 'center';
        ctx.fillText('no prices collected', (x0 + x1) / 2, top + 18 * uPlot.pxRatio);
      }
    }
    ctx.restore();
  };
}

// (a) The food price index: all food and its groups (raw index points: 1000 on the first computed
// day). A line is drawn only through observed days: where coverage is 0 (nothing observed, the
// index carried forward) it breaks, and the hole is shaded.
async function indexPanel(statusPromise) {
  const panel = new Panel('index', 'food-index');
  const target = panel.el.querySelector('.chart');
  const gapsNote = panel.el.querySelector('.gaps');
  try {
    const data = await panel.run({ days: 730 });
    const { days, groups } = data.indexGroups;
    const shown = groups.filter((g) => g.raw.some((v) => v != null));
    if (!days.length || !shown.length) {
      target.replaceChildren(el('p', { class: 'empty' }, 'The index has not been computed yet.'));
      panel.state('empty', 0);
      return;
    }
    const latest = data.indexLatest;
    const head = panel.el.querySelector('.headline');
    if (latest) {
      // d30 and yoy are percent changes.
      const pct = (v) => (v == null ? '—' : `${v > 0 ? '+' : ''}${v.toFixed(2)} %`);
      head.replaceChildren(
        el('strong', {}, latest.headline.value.toFixed(1)),
        ` all food on ${formatDay(latest.asOf)} (official FPI scale) · 30 days ${pct(latest.headline.d30)} · a year ${pct(latest.headline.yoy)}`,
      );
    }
    const all = shown.find((g) => g.id === 0) ?? shown[0];
    const segments = lineSegments(days, all.raw, all.coverage);
    const holes = segmentGaps(days, segments);
    const u = chart(
      target,
      {
        series: [{}, ...shown.map((g, i) => ({ label: g.id === 0 ? 'All food' : g.name, stroke: PALETTE[i % PALETTE.length], width: g.id === 0 ? 2.5 : 1.2, spanGaps: false }))],
        axes: [{}, { label: 'index (first day = 1000)', size: 60 }],
        scales: { x: { time: true } },
        hooks: { drawClear: [shadeGaps(holes)] },
      },
      [days.map(dayToSeconds), ...shown.map((g) => drawnValues(days, g.raw, g.coverage))],
    );
    // For the browser test: what was drawn, and how many pieces the all-food line is in.
    target.uplot = u;
    target.dataset.segments = String(segments.length);
    panel.state('ready', days.length);

    // The days nothing was collected (GET /api/v1/status), else the holes of the line itself.
    const status = await statusPromise;
    const sentences = status && Array.isArray(status.gaps)
      ? gapSentences(status.gaps)
      : holes.map((g) => `Nothing was observed for the index ${formatDay(g.from)} → ${formatDay(g.to)} (${formatCount(g.days)} day${g.days === 1 ? '' : 's'}).`);
    gapsNote.replaceChildren(...sentences.map((t) => el('p', { class: 'gap' }, t)));
    if (sentences.length) gapsNote.append(el('p', { class: 'note' }, 'The lines break on days with no observation; the index only carries its last level forward there.'));
    gapsNote.hidden = !sentences.length;
  } catch (e) {
    panel.fail(target, e);
  }
}

/**
 * Spans of several series as step data on one x axis: every span start and end is a point; a
 * series is null where none of its spans covers the day.
 */
function stepData(series) {
  // The day after each span too: where no span of the series starts then, it is null there and the
  // line breaks (a gap in collection is not drawn as a price carried across it).
  const xs = [...new Set(series.flatMap((s) => s.spans.flatMap((p) => [p.from, p.to, dayAfter(p.to, 1)])))].sort();
  const cols = series.map((s) => xs.map((d) => s.spans.find((p) => p.from <= d && d <= p.to)?.value ?? null));
  return [xs.map(dayToSeconds), ...cols.map((c) => c.map((v) => (v == null ? null : v / 100)))];
}

// (b) An item's price history by chain: search, pick a product, one line per chain (shelf price; promotions dashed).
async function historyPanel() {
  const panel = new Panel('history', 'price-history');
  const form = panel.el.querySelector('form.search');
  const choices = panel.el.querySelector('ul.choices');
  const target = panel.el.querySelector('.chart');

  const draw = (product) => {
    for (const b of choices.querySelectorAll('button')) b.setAttribute('aria-pressed', String(b.dataset.key === product.key));
    const series = [];
    product.offers.forEach((o, i) => {
      const h = o.history;
      if (!h?.from.length) return;
      const colour = colourOf(o.retailerSlug, i);
      series.push({ label: o.retailerName, stroke: colour, dash: undefined, spans: h.from.map((from, j) => ({ from, to: h.to[j], value: h.price[j] })) });
      if (h.promo.some((v) => v != null)) {
        series.push({ label: `${o.retailerName} promotion`, stroke: colour, dash: [4, 4], spans: h.from.map((from, j) => ({ from, to: h.to[j], value: h.promo[j] })) });
      }
    });
    if (!series.length) {
      target.replaceChildren(el('p', { class: 'empty' }, 'No price history for this item yet.'));
      return 0;
    }
    const stepped = uPlot.paths.stepped({ align: 1 });
    chart(
      target,
      {
        title: `${product.name}${product.sizeText ? ` · ${product.sizeText}` : ''}`,
        series: [{}, ...series.map((s) => ({ label: s.label, stroke: s.stroke, dash: s.dash, width: 1.8, paths: stepped, value: (_u, v) => (v == null ? '—' : `$${v.toFixed(2)}`) }))],
        axes: [{}, { label: 'NZ$', size: 55, values: (_u, vals) => vals.map((v) => v.toFixed(2)) }],
        scales: { x: { time: true } },
      },
      stepData(series),
    );
    return series.length;
  };

  const search = async (q) => {
    try {
      const data = await panel.run({ q });
      const products = data.searchProducts.map((p, i) => ({ ...p, key: String(p.productId ?? `i${i}`) }));
      // First drawn: the product priced at the most chains with a history, then the longest history.
      const chains = (p) => p.offers.filter((o) => o.history?.from.length).length;
      const spans = (p) => p.offers.reduce((n, o) => n + (o.history?.from.length ?? 0), 0);
      const withHistory = products.filter((p) => chains(p) > 0).sort((a, b) => chains(b) - chains(a) || spans(b) - spans(a));
      choices.replaceChildren(
        ...products.map((p) =>
          el('li', {}, el('button', { type: 'button', 'data-key': p.key, 'aria-pressed': 'false', onclick: () => draw(p) }, `${p.name}${p.sizeText ? ` ${p.sizeText}` : ''} (${p.offers.map((o) => o.retailerName).join(', ')})`)),
        ),
      );
      if (!products.length) {
        target.replaceChildren(el('p', { class: 'empty' }, `Nothing matches “${q}”.`));
        panel.state('empty', 0);
        return;
      }
      const drawn = draw(withHistory[0] ?? products[0]);
      panel.state(drawn ? 'ready' : 'empty', drawn);
    } catch (e) {
      panel.fail(target, e);
    }
  };
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const q = new FormData(form).get('q')?.toString().trim();
    if (q) void search(q);
  });
  const initial = new URLSearchParams(location.search).get('q');
  if (initial) form.q.value = initial;
  await search(form.q.value);
}

// (c) Store levels: a ranked list (cheapest level first, stores without a level after, most items first) and a map.
async function storesPanel() {
  const panel = new Panel('stores', 'store-levels');
  const ranked = panel.el.querySelector('.ranked');
  const map = panel.el.querySelector('svg.map');
  try {
    const { stores } = await panel.run();
    if (!stores.length) {
      ranked.replaceChildren(el('p', { class: 'empty' }, 'No stores yet.'));
      panel.state('empty', 0);
      return;
    }
    const sorted = [...stores].sort((a, b) =>
      a.level != null && b.level != null ? a.level - b.level : a.level != null ? -1 : b.level != null ? 1 : b.nItems - a.nItems || a.name.localeCompare(b.name),
    );
    const slugs = [...new Set(stores.map((s) => s.retailerSlug))];
    // New Zealand, roughly 166–179° E and 34–47.5° S, in a 200 × 280 box (no tiles: just the stores).
    const ns = 'http://www.w3.org/2000/svg';
    map.replaceChildren();
    for (const s of [...stores].sort((a, b) => (a.level != null) - (b.level != null))) {
      const c = document.createElementNS(ns, 'circle');
      c.setAttribute('cx', (((s.lng - 166) / 13) * 200).toFixed(1));
      c.setAttribute('cy', (((-34 - s.lat) / 13.5) * 280).toFixed(1));
      c.setAttribute('r', s.level != null ? '3.5' : '1.8');
      c.setAttribute('fill', colourOf(s.retailerSlug, slugs.indexOf(s.retailerSlug)));
      c.setAttribute('fill-opacity', s.level != null ? '1' : '0.55');
      if (s.level != null) c.setAttribute('stroke', '#1d2327');
      const t = document.createElementNS(ns, 'title');
      t.textContent = `${s.name} (${s.town})${s.level != null ? `: ${s.level.toFixed(3)}` : ''}`;
      c.append(t);
      map.append(c);
    }
    const rows = sorted.slice(0, 60).map((s, i) =>
      el('tr', {},
        el('td', { class: 'num' }, String(i + 1)),
        el('td', {}, el('span', { class: 'dot', style: `background:${colourOf(s.retailerSlug, slugs.indexOf(s.retailerSlug))}` }), s.name),
        el('td', {}, s.town),
        el('td', { class: 'num' }, s.level != null ? s.level.toFixed(3) : '—'),
        el('td', { class: 'num' }, String(s.nItems)),
      ),
    );
    const withLevel = stores.filter((s) => s.level != null).length;
    ranked.replaceChildren(
      el('p', { class: 'note' }, `${stores.length} stores; ${withLevel} with a level. ${stores.length > 60 ? 'The first 60 shown.' : ''}`),
      el('table', {}, el('thead', {}, el('tr', {}, el('th', { class: 'num' }, '#'), el('th', {}, 'store'), el('th', {}, 'town'), el('th', { class: 'num' }, 'level'), el('th', { class: 'num' }, 'items'))), el('tbody', {}, ...rows)),
    );
    panel.state('ready', rows.length);
  } catch (e) {
    panel.fail(ranked, e);
  }
}

// (d) Current deals of one kind.
async function dealsPanel() {
  const panel = new Panel('deals', 'deals');
  const body = panel.el.querySelector('.deals-body');
  const form = panel.el.querySelector('form.kinds');
  const load = async (kind) => {
    try {
      const { deals } = await panel.run({ kind, limit: 12 });
      if (!deals.listings.length) {
        body.replaceChildren(el('p', { class: 'empty' }, `No current ${kind} deals.`));
        panel.state('empty', 0);
        return;
      }
      // The day the deals describe: the collection day each was seen on (the chain's catalogue day).
      const asOf = dealsAsOf(deals.listings.flatMap((l) => l.deals.filter((x) => x.kind === deals.kind).map((x) => x.day)));
      const rows = deals.listings.map((l) => {
        const d = l.deals.find((x) => x.kind === deals.kind) ?? l.deals[0];
        return el('tr', {},
          el('td', {}, el('a', { href: `/api/v1/listings/${l.id}` }, l.brand && !l.name.toLowerCase().includes(l.brand.toLowerCase()) ? `${l.brand} · ${l.name}` : l.name), l.sizeText ? ` ${l.sizeText}` : ''),
          el('td', {}, l.retailerName),
          el('td', { class: 'num' }, d ? money(d.price) : '—'),
          el('td', { class: 'num' }, d ? `${money(Math.round(d.price - d.saving))}${d.kind === 'multibuy' ? ' each' : ''}` : '—'),
          el('td', { class: 'num' }, d ? `${(d.savingPct * 100).toFixed(0)} %` : '—'),
        );
      });
      body.replaceChildren(
        el('p', { class: 'note deals-as-of' }, `${formatCount(deals.total)} ${deals.kind} deals ${asOf || 'current'}; the biggest savings:`),
        el('table', {}, el('thead', {}, el('tr', {}, el('th', {}, 'item'), el('th', {}, 'chain'), el('th', { class: 'num' }, 'shelf'), el('th', { class: 'num' }, 'deal'), el('th', { class: 'num' }, 'saving'))), el('tbody', {}, ...rows)),
      );
      panel.state('ready', rows.length);
    } catch (e) {
      panel.fail(body, e);
    }
  };
  form.addEventListener('change', () => void load(new FormData(form).get('kind')));
  await load('special');
}

// The nowcast's track record: all food month by month, then each aggregate's mean absolute errors.
async function trackRecordPanel() {
  const panel = new Panel('track-record', 'track-record');
  const body = panel.el.querySelector('.track-body');
  try {
    const { indexValidation: v } = await panel.run();
    const all = v.aggregates[0];
    // Only months the nowcast observed in full: a month carried forward over a gap in the data
    // has no measured change (its "0 %" would be a wrong answer, not a forecast).
    const months = (all?.months ?? []).filter((m) => m.counted);
    const skipped = (all?.months ?? []).filter((m) => !m.counted && m.official != null).length;
    const latest = estimateSentence(all?.estimate);
    const estimate = latest ? el('p', { class: 'estimate' }, el('strong', {}, `${all.name}, latest month: `), latest) : null;
    if (!months.length) {
      body.replaceChildren(...[estimate, el('p', { class: 'empty' }, 'No month has both an official figure and a nowcast observed on every day yet.')].filter(Boolean));
      panel.state('empty', 0);
      return;
    }
    const pp = (x) => formatChange(x, ' pp');
    const rows = months.map((m) =>
      el('tr', {},
        el('td', {}, formatMonth(m.month)),
        el('td', { class: 'num' }, formatChange(m.official)),
        el('td', { class: 'num' }, formatChange(m.nowcast)),
        el('td', { class: 'num' }, pp(m.error)),
      ),
    );
    const mae = (x) => (x == null ? '—' : `${x.toFixed(2)} pp`);
    const summary = v.aggregates.map((a) =>
      el('li', {}, el('strong', {}, a.name), `: nowcast ${mae(a.summary.nowcast)}, first ${v.firstDays} days ${mae(a.summary.firstDays)}, flat forecast ${mae(a.summary.flat)} (${a.summary.months} months)`),
    );
    // replaceChildren would write a null as the text "null": the optional parts are filtered out.
    body.replaceChildren(...[
      estimate,
      el('table', {}, el('thead', {}, el('tr', {}, el('th', {}, `${all.name}, month`), el('th', { class: 'num' }, 'official'), el('th', { class: 'num' }, 'nowcast'), el('th', { class: 'num' }, 'error'))), el('tbody', {}, ...rows)),
      skipped ? el('p', { class: 'note' }, `${skipped} more official months are left out: the nowcast did not observe every day of them.`) : null,
      el('p', { class: 'note' }, `Mean absolute error of the monthly change (${v.method}):`),
      el('ul', { class: 'mae' }, ...summary),
      ...v.unobservable.map((u) => el('p', { class: 'note' }, `Not on shelves: ${u.name} — ${u.reason}`)),
    ].filter(Boolean));
    panel.state('ready', rows.length);
  } catch (e) {
    panel.fail(body, e);
  }
}

// Shrinkflation (issue 32 item 4): the newest events of the year up to the data's last day.
const UNIT_WORDS = { kg: 'per kg', l: 'per L', each: 'each', '100sheet': 'per 100 sheets' };
async function shrinkflationPanel() {
  const panel = new Panel('shrinkflation', 'shrinkflation');
  const body = panel.el.querySelector('.shrink-body');
  try {
    const { shrinkflation: s } = await panel.run({ days: 365, limit: 12 });
    if (!s.events.length) {
      const when = s.asOf ? ` from ${formatDay(s.from)} to ${formatDay(s.asOf)}` : '';
      body.replaceChildren(
        el('p', { class: 'empty' }, `No pack got smaller at a flat or higher shelf price${when}.`),
        el('p', { class: 'note' }, "Sizes are recorded from the first collection that sees them; a catalogue that holds one size per item (as the imported one does) has no change to compare yet."),
      );
      panel.state('empty', 0);
      return;
    }
    const unitWords = (u) => (Object.hasOwn(UNIT_WORDS, u) ? UNIT_WORDS[u] : u);
    const rows = s.events.map((e) =>
      el('tr', {},
        el('td', {}, el('a', { href: `/api/v1/listings/${e.listingId}` }, e.brand && !e.name.toLowerCase().includes(e.brand.toLowerCase()) ? `${e.brand} · ${e.name}` : e.name)),
        el('td', {}, e.retailer),
        el('td', {}, formatDay(e.day)),
        el('td', {}, `${e.oldSize} → ${e.newSize}`),
        el('td', { class: 'num' }, `${money(e.oldPrice)} → ${money(e.newPrice)}`),
        el('td', { class: 'num' }, `${money(e.oldUnitPrice)} → ${money(e.newUnitPrice)} ${unitWords(e.compareUnit)}`),
        el('td', { class: 'num' }, `+${e.unitPriceChange.toFixed(1)} %`),
      ),
    );
    body.replaceChildren(
      el('p', { class: 'note shrink-as-of' }, `${formatCount(s.total)} shrinks from ${formatDay(s.from)} to ${formatDay(s.asOf)}; the newest:`),
      el('table', {}, el('thead', {}, el('tr', {}, el('th', {}, 'item'), el('th', {}, 'chain'), el('th', {}, 'day'), el('th', {}, 'size'), el('th', { class: 'num' }, 'shelf price'), el('th', { class: 'num' }, 'unit price'), el('th', { class: 'num' }, 'rise'))), el('tbody', {}, ...rows)),
    );
    panel.state('ready', rows.length);
  } catch (e) {
    panel.fail(body, e);
  }
}

// How old the data is: the banner and each chain's last collection day (nothing when the status does not answer).
async function freshness(statusPromise) {
  const root = document.querySelector('[data-freshness]');
  await followFreshness(root, await statusPromise);
}

const statusPromise = loadStatus();
await Promise.all([freshness(statusPromise), indexPanel(statusPromise), historyPanel(), storesPanel(), dealsPanel(), trackRecordPanel(), shrinkflationPanel()]);
document.body.dataset.ready = 'true';
