// Guards the privilege table: every role's procedures and kinds are pinned, the observer can name no mutation, and only the dashboard can name a grants procedure.
import { describe, expect, it } from 'vitest';
import { auditRouter } from '../procedures/audit.js';
import { bindingsRouter } from '../procedures/bindings.js';
import { grantsRouter } from '../procedures/grants.js';
import { inputRouter } from '../procedures/input.js';
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
          "audit.listInput:query",
          "bindings.bind:mutation",
          "bindings.get:query",
          "bindings.list:query",
          "bindings.status:query",
          "bindings.tail:query",
          "bindings.unbind:mutation",
          "health.info:query",
          "health.ready:query",
          "input.context:query",
          "input.sendBound:mutation",
          "input.sendKeys:mutation",
          "input.sendTask:mutation",
          "input.sendText:mutation",
          "sessions.batchInspect:query",
          "sessions.capture:query",
          "sessions.list:query",
          "sessions.status:query",
          "sessions.tail:query",
          "source.blame:query",
          "source.diff:query",
          "source.gitLog:query",
          "source.gitStatus:query",
          "source.listFiles:query",
          "source.listProjects:query",
          "source.listRefs:query",
          "source.readFile:query",
          "source.searchText:query",
          "source.showCommit:query",
          "wait.forState:query",
          "wait.resume:query",
        ],
        "observer": [
          "health.info:query",
          "health.ready:query",
          "oauth.approveAuthorization:mutation",
          "oauth.describeAuthorization:query",
          "oauth.exchangeToken:mutation",
          "oauth.registerClient:mutation",
          "oauth.revokeToken:mutation",
          "oauth.verifyAccessToken:query",
          "sessions.batchInspect:query",
          "sessions.capture:query",
          "sessions.list:query",
          "sessions.status:query",
          "sessions.tail:query",
          "source.blame:query",
          "source.diff:query",
          "source.gitLog:query",
          "source.gitStatus:query",
          "source.listFiles:query",
          "source.listProjects:query",
          "source.listRefs:query",
          "source.readFile:query",
          "source.searchText:query",
          "source.showCommit:query",
        ],
        "web": [
          "audit.listInput:query",
          "audit.readSummary:query",
          "auth.changePassword:mutation",
          "auth.login:mutation",
          "auth.logout:mutation",
          "auth.validateSession:query",
          "bindings.bind:mutation",
          "bindings.get:query",
          "bindings.list:query",
          "bindings.status:query",
          "bindings.tail:query",
          "bindings.unbind:mutation",
          "grants.bulkSet:mutation",
          "grants.events:query",
          "grants.list:query",
          "grants.revoke:mutation",
          "grants.set:mutation",
          "health.info:query",
          "health.ready:query",
          "input.context:query",
          "input.sendBound:mutation",
          "input.sendKeys:mutation",
          "input.sendTask:mutation",
          "input.sendText:mutation",
          "live.paneOutput:subscription",
          "oauthAdmin.listClients:query",
          "oauthAdmin.listGrants:query",
          "oauthAdmin.listRevocations:query",
          "oauthAdmin.revokeClient:mutation",
          "oauthAdmin.revokeGrant:mutation",
          "oauthAdmin.revokeUser:mutation",
          "sessions.batchInspect:query",
          "sessions.capture:query",
          "sessions.list:query",
          "sessions.status:query",
          "sessions.tail:query",
          "wait.forState:query",
          "wait.resume:query",
        ],
      }
    `);
  });

  it('lets only the dashboard name a grants procedure (no MCP tool can grant)', () => {
    // By path and by identity, so a grants procedure cannot hide under another name.
    const grantProcedures = new Set(Object.values(grantsRouter._def.procedures));
    const grantsOf = (role: keyof typeof ROLE_ROUTERS) =>
      Object.entries(ROLE_ROUTERS[role]._def.procedures as Record<string, unknown>)
        .filter(([path, proc]) => path.startsWith('grants.') || grantProcedures.has(proc as never))
        .map(([path]) => path);
    expect(grantsOf('gateway')).toEqual([]);
    expect(grantsOf('observer')).toEqual([]);
    expect(grantsOf('web').sort()).toEqual(Object.keys(grantsRouter._def.procedures).map((p) => `grants.${p}`).sort());
  });

  it('gives the observer no input, binding or input-audit procedure, by path or by identity', () => {
    const forbidden = new Set([inputRouter, bindingsRouter, auditRouter].flatMap((r) => Object.values(r._def.procedures)));
    const offending = Object.entries(ROLE_ROUTERS.observer._def.procedures as Record<string, unknown>)
      .filter(([path, proc]) => /^(input|bindings|audit)\./.test(path) || forbidden.has(proc as never))
      .map(([path]) => path);
    expect(offending).toEqual([]);
  });

  it('gives the observer queries only (plus OAuth token procedures)', () => {
    const offending = listProcedures(ROLE_ROUTERS.observer).filter(
      (p) => !p.endsWith(':query') && !OBSERVER_MUTATION_ALLOWLIST.test(p.split(':')[0]!),
    );
    expect(offending).toEqual([]);
  });
});
