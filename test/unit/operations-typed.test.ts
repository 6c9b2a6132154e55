/**
 * The persisted documents are parsed and validated once, at start-up: a broken document stops
 * createServer with a message naming the operation and the problem, before any request (and
 * before the server is built). No database: the failure comes first.
 */
import { describe, expect, it, vi } from 'vitest';
import type { ContextSource } from '../../src/context.js';

/** get_listing's document with a field the schema does not have; every other document as committed. */
const BROKEN = (text: string) => text.replace('external_id: externalId', 'external_id: externalIdentifier');

vi.mock('../../facades/operations.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../facades/operations.js')>();
  return { ...real, documentText: (name: string) => (name === 'get_listing' ? BROKEN(real.documentText(name)) : real.documentText(name)) };
});

const { createServer } = await import('../../facades/server.js');
const { prepareDocuments } = await import('../../facades/execute.js');
const { loadEnv } = await import('../../src/env.js');
const { operations } = await import('../../facades/operations.js');
const { documentText } = await vi.importActual<typeof import('../../facades/operations.js')>('../../facades/operations.js');

describe('persisted documents are checked at start-up', () => {
  it('createServer throws on a broken document, naming the operation and the field', async () => {
    const env = loadEnv({ LOG_LEVEL: 'silent', NODE_ENV: 'test' });
    const db = {} as ContextSource; // never reached: the documents are checked first
    await expect(createServer({ db, env })).rejects.toThrow(
      /^Invalid operation documents:\n {2}get_listing: Cannot query field "externalIdentifier" on type "Listing"\. Did you mean "externalId"\?$/,
    );
  });

  it('prepareDocuments lists every broken document, and accepts the committed ones', () => {
    const getListing = operations.find((o) => o.name === 'get_listing')!;
    const healthz = operations.find((o) => o.name === 'healthz')!;
    expect(() => prepareDocuments([getListing, healthz], undefined, (name) => (name === 'healthz' ? 'query healthz { health' : BROKEN(documentText(name))))).toThrow(
      /get_listing: Cannot query field "externalIdentifier"[^\n]*\n {2}healthz: Syntax Error: Expected Name, found <EOF>\./,
    );
    expect(() => prepareDocuments([healthz], undefined, () => 'query other { health }')).toThrow('healthz: must hold exactly one operation, `query healthz`');
    const docs = prepareDocuments(operations, undefined, documentText);
    expect([...docs.keys()].sort()).toEqual(operations.map((o) => o.name).sort());
  });
});
