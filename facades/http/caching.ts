/**
 * Conditional requests (api-spec "Caching", get_index_latest): `ETag` on cacheable GET responses and
 * `If-None-Match` → 304. STUB: filled in by the caching work of issue 3.
 */
import type { FastifyInstance } from 'fastify';

/** Adds ETag handling to `app` (before routes are registered). */
export async function registerCaching(_app: FastifyInstance): Promise<void> {}
