/**
 * The per-request GraphQL context: what is truly per request (the database handles, the search
 * backend, where exports are served from) and Pothos' context cache. The dataloaders are not here:
 * each sits beside its fields in the type file of src/graph that owns its concept
 * (@pothos/plugin-dataloader's `t.loadable` fields, or a shared loader from src/graph/batch.ts
 * `requestLoader`), cached per context, so every per-listing (or per-store, per-chain) value of one
 * request is still fetched in one batched query.
 */
import { initContextCache } from '@pothos/core';
import type pg from 'pg';
import type { PrismaClient } from './generated/prisma/client.js';
import type { SearchBackend } from './search/backend.js';
import { createEmbeddedBackend } from './search/embedded.js';

/** What every resolver receives. */
export interface Context {
  prisma: PrismaClient;
  pool: pg.Pool;
  /** The search backend of the process (embedded over `pool` unless configured otherwise). */
  search: SearchBackend;
  /** EXPORT_DIR, where the nightly exports are published (null: none are served). */
  exportDir: string | null;
}

/**
 * The handles a context is built from (a `Database` from src/db/database.ts fits). Without
 * `search`, the embedded backend over `pool` is used.
 */
export interface ContextSource {
  prisma: PrismaClient;
  pool: pg.Pool;
  search?: SearchBackend;
  /** EXPORT_DIR (see Context.exportDir). */
  exportDir?: string;
}

/**
 * Builds a fresh context for one request or operation run. Its new Pothos context cache gives it
 * new, empty loader caches, and survives a server copying or extending the context object.
 */
export function createContext(db: ContextSource): Context {
  return {
    ...initContextCache(),
    prisma: db.prisma,
    pool: db.pool,
    search: db.search ?? createEmbeddedBackend(db.pool),
    exportDir: db.exportDir ?? null,
  };
}
