// Guards the privilege table: every role's procedures and kinds are pinned, and the observer can name no mutation.
import { describe, expect, it } from 'vitest';
import { ROLE_ROUTERS } from './index.js';

type ProcedureDef = { _def: { type: 'query' | 'mutation' | 'subscription' } };

export function listProcedures(router: { _def: { procedures: Record<string, unknown> } }): string[] {
  return Object.entries(router._def.procedures)
    .map(([path, proc]) => `${path}:${(proc as ProcedureDef)._def.type}`)
    .sort();
}

/** The OAuth token procedures the observer needs are the only mutations it may ever gain. */
const OBSERVER_MUTATION_ALLOWLIST = /^oauth\./;

describe('role routers', () => {
  it('pins every procedure and kind per role', () => {
    const table = Object.fromEntries(Object.entries(ROLE_ROUTERS).map(([role, r]) => [role, listProcedures(r)]));
    expect(table).toMatchInlineSnapshot(`
      {
        "gateway": [
          "health.info:query",
          "health.ready:query",
          "sessions.batchInspect:query",
          "sessions.capture:query",
          "sessions.list:query",
          "sessions.status:query",
          "sessions.tail:query",
        ],
        "observer": [
          "health.info:query",
          "health.ready:query",
          "sessions.batchInspect:query",
          "sessions.capture:query",
          "sessions.list:query",
          "sessions.status:query",
          "sessions.tail:query",
        ],
        "web": [
          "health.info:query",
          "health.ready:query",
          "sessions.batchInspect:query",
          "sessions.capture:query",
          "sessions.list:query",
          "sessions.status:query",
          "sessions.tail:query",
        ],
      }
    `);
  });

  it('gives the observer queries only (plus OAuth token procedures)', () => {
    const offending = listProcedures(ROLE_ROUTERS.observer).filter(
      (p) => !p.endsWith(':query') && !OBSERVER_MUTATION_ALLOWLIST.test(p.split(':')[0]!),
    );
    expect(offending).toEqual([]);
  });
});
