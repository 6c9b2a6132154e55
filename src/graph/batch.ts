/**
 * The two small helpers the type files build their loaders with (issue 27 item 2: each loader sits
 * in the type file that owns its concept; this file holds no loader). A field read by one field
 * only is a `t.loadable` / `t.loadableList` field of @pothos/plugin-dataloader; a loader shared by
 * several fields is a {@link requestLoader} exported by its owner. Both cache per request: the
 * plugin and `requestLoader` keep their DataLoaders in Pothos' context cache (src/context.ts starts
 * one per context), so every context gets new, empty loaders and every request's values of one
 * loader are read in one batched call of the service function (src/services).
 */
import { createContextCache } from '@pothos/core';
import DataLoader from 'dataloader';
import type { Context } from '../context.js';

/**
 * A request-scoped DataLoader over `batch`, created on first use for each context and then reused
 * by every field that asks for it (the dataloader plugin's own pattern for a shared loader).
 * `options` as DataLoader takes them (e.g. `cacheKeyFn` for a composite key).
 */
export function requestLoader<K, V, C = K>(
  batch: (keys: readonly K[], ctx: Context) => Promise<readonly (V | Error)[]>,
  options?: DataLoader.Options<K, V, C>,
): (ctx: Context) => DataLoader<K, V, C> {
  return createContextCache((ctx: Context) => new DataLoader<K, V, C>((keys) => batch(keys, ctx), options));
}

/** The values of `keys` in their order from a service's map, `missing()` for a key the map lacks. */
export function inKeyOrder<K, V>(keys: readonly K[], found: ReadonlyMap<K, V>, missing: () => V): V[] {
  return keys.map((k) => (found.has(k) ? (found.get(k) as V) : missing()));
}

/**
 * A batch function over a service that maps ids to values (the services' `(pool, ids) → Map` shape),
 * `missing()` for an id it did not return: the batch of the former hand-made per-id loaders.
 */
export function byId<V>(
  fetch: (ctx: Context, ids: readonly number[]) => Promise<ReadonlyMap<number, V>>,
  missing: () => V,
): (ids: readonly number[], ctx: Context) => Promise<V[]> {
  return async (ids, ctx) => inKeyOrder(ids, await fetch(ctx, ids), missing);
}
