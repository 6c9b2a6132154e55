// How old the data is, on the front door (/) and the dashboard (issue 26): GET /api/v1/status,
// turned into words by facts.js's freshnessView, drawn into an element `[data-freshness]`:
//
//   <div class="banner" role="alert">Prices are out of date: …</div>   (only when data is stale)
//   <p class="computing" role="status">Still being computed: …</p>    (only while jobs are queued or running)
//   <ul class="as-of"><li data-chain="woolworths" data-stale="true">Woolworths: prices as of 3 Aug 2026 (121 days ago)</li>…</ul>
//
// When the status does not answer (404 before it existed, an error, no network) nothing is shown
// and the element says `data-state="none"`; the page goes on without it.
import { FOLLOW_SECONDS, freshnessView } from './facts.js';

/** GET /api/v1/status, or null when it does not answer with JSON. */
export async function loadStatus() {
  try {
    // no-cache: revalidate (ETag) rather than reuse a stored answer — `computing` moves quickly.
    const r = await fetch('/api/v1/status', { headers: { accept: 'application/json' }, cache: 'no-cache' });
    if (!r.ok) return null;
    return await r.json();
  } catch {
    return null;
  }
}

const el = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') node.className = v;
    else node.setAttribute(k, v);
  }
  for (const c of children) if (c != null) node.append(c);
  return node;
};

/**
 * Draws the status into `root` (an element with `data-freshness`) and returns its view (null when
 * there is none): the warning banner when stale, then each chain's last collection day, then (with
 * `gaps`) the days no chain was collected.
 */
export function renderFreshness(root, status, { gaps = false } = {}) {
  const view = freshnessView(status);
  if (!view) {
    root.replaceChildren();
    root.hidden = true;
    root.dataset.state = 'none';
    return null;
  }
  // Chains with prices first, those never collected after (each group in the status's order).
  const chains = [...view.chains.filter((c) => c.lastDay), ...view.chains.filter((c) => !c.lastDay)];
  const items = chains.map((c) =>
    el('li', { 'data-chain': c.slug, 'data-stale': String(c.stale), class: !c.lastDay ? 'never' : c.stale ? 'stale' : 'fresh' },
      el('strong', {}, c.name), `: ${c.text}`,
      c.stale && c.lastDay ? el('span', { class: 'flag' }, ' stale') : null,
    ),
  );
  const parts = [
    view.banner ? el('div', { class: 'banner', role: 'alert' }, el('strong', {}, '⚠ '), view.banner) : null,
    view.computing ? el('p', { class: 'computing', role: 'status' }, view.computing) : null,
    el('p', { class: 'as-of-head' }, `Prices as of each chain's last collection day${view.today ? ` (today is ${view.today})` : ''}:`),
    el('ul', { class: 'as-of' }, ...items),
    gaps && view.gaps.length ? el('div', { class: 'gaps' }, ...view.gaps.map((t) => el('p', { class: 'gap' }, t))) : null,
  ];
  root.replaceChildren(...parts.filter((p) => p != null));
  root.hidden = false;
  root.dataset.state = view.banner ? 'stale' : 'fresh';
  return view;
}

/**
 * Draws `status` (or loads it) into `root` like {@link renderFreshness}, then, while the status says
 * something is still being computed, loads and draws it again every {@link FOLLOW_SECONDS} seconds
 * until nothing is (or the status stops answering). Resolves with the first view.
 */
export async function followFreshness(root, status, options = {}) {
  const first = renderFreshness(root, status === undefined ? await loadStatus() : status, options);
  const again = async () => {
    const view = renderFreshness(root, await loadStatus(), options);
    if (view?.computing) setTimeout(again, FOLLOW_SECONDS * 1000);
  };
  if (first?.computing) setTimeout(again, FOLLOW_SECONDS * 1000);
  return first;
}
