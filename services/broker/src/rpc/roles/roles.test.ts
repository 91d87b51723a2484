// Guards the privilege table: every role's procedures and kinds are pinned, each row's procedure is built for that role (and no other role is named in its base), the observer can name no mutation, and only the dashboard can name a grants procedure.
import { describe, expect, it } from 'vitest';
import { audit, bindings, dashboardInput, grants, input } from '../procedures/index.js';
import { effectOf, type ProcedureMeta } from '../trpc.js';
import { ROLE_ROUTERS } from './index.js';

type ProcedureDef = { _def: { type: 'query' | 'mutation' | 'subscription'; meta?: ProcedureMeta } };
type Role = keyof typeof ROLE_ROUTERS;
const proceduresOf = (role: Role) => ROLE_ROUTERS[role]._def.procedures as unknown as Record<string, ProcedureDef>;

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
          "catalogue.toolsets:query",
          "health.info:query",
          "health.ready:query",
          "human.notify:mutation",
          "human.request:mutation",
          "input.context:query",
          "input.run:mutation",
          "input.sendBound:mutation",
          "input.sendKeys:mutation",
          "input.sendTask:mutation",
          "input.sendText:mutation",
          "lifecycle.close:mutation",
          "lifecycle.forget:mutation",
          "lifecycle.resize:mutation",
          "lifecycle.restart:mutation",
          "lifecycle.start:mutation",
          "nodes.health:query",
          "notes.addAttachment:mutation",
          "notes.create:mutation",
          "notes.delete:mutation",
          "notes.facets:query",
          "notes.get:query",
          "notes.linkToProject:mutation",
          "notes.list:query",
          "notes.markApplied:mutation",
          "notes.removeAttachment:mutation",
          "notes.restore:mutation",
          "notes.search:query",
          "notes.update:mutation",
          "oauth.approveAuthorization:mutation",
          "oauth.describeAuthorization:query",
          "oauth.exchangeToken:mutation",
          "oauth.registerClient:mutation",
          "oauth.revokeToken:mutation",
          "oauth.verifyAccessToken:query",
          "projects.check:query",
          "projects.deployPreview:mutation",
          "projects.dispatch:mutation",
          "review.waitForApproval:query",
          "sessions.batchInspect:query",
          "sessions.capture:query",
          "sessions.exportTranscript:query",
          "sessions.list:query",
          "sessions.panes:query",
          "sessions.readSince:query",
          "sessions.status:query",
          "sessions.tail:query",
          "supervisor.ackEvent:mutation",
          "supervisor.listEvents:query",
          "supervisor.listWatches:query",
          "supervisor.runOnce:mutation",
          "supervisor.setVerifierPolicy:mutation",
          "supervisor.status:query",
          "supervisor.unwatch:mutation",
          "supervisor.waitEvents:query",
          "supervisor.watch:mutation",
          "supervisor2.claimEvent:mutation",
          "supervisor2.executeSend:mutation",
          "supervisor2.getPolicy:query",
          "supervisor2.listActionableEvents:query",
          "supervisor2.listActions:query",
          "supervisor2.reviewAction:mutation",
          "supervisor2.setPolicy:mutation",
          "supervisor2.submitDecision:mutation",
          "wait.forState:query",
          "wait.resume:query",
        ],
        "notifier": [
          "notifier.claim:mutation",
          "notifier.report:mutation",
          "notifier.started:mutation",
        ],
        "observer": [
          "health.ready:query",
          "notes.get:query",
          "notes.search:query",
          "oauth.approveAuthorization:mutation",
          "oauth.describeAuthorization:query",
          "oauth.exchangeToken:mutation",
          "oauth.registerClient:mutation",
          "oauth.revokeToken:mutation",
          "oauth.verifyAccessToken:query",
          "sessions.batchInspect:query",
          "sessions.capture:query",
          "sessions.list:query",
          "sessions.readSince:query",
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
          "grants.bulkSet:mutation",
          "grants.events:query",
          "grants.list:query",
          "grants.revoke:mutation",
          "grants.set:mutation",
          "health.ready:query",
          "human.answerSecret:mutation",
          "human.notices:query",
          "human.promptReader:query",
          "input.sendKeys:mutation",
          "input.sendText:mutation",
          "lifecycle.close:mutation",
          "lifecycle.forget:mutation",
          "lifecycle.managed:query",
          "lifecycle.profiles:query",
          "lifecycle.resize:mutation",
          "lifecycle.restart:mutation",
          "lifecycle.start:mutation",
          "live.paneOutput:subscription",
          "nodes.overview:query",
          "notes.addAttachment:mutation",
          "notes.attachment:query",
          "notes.create:mutation",
          "notes.delete:mutation",
          "notes.facets:query",
          "notes.get:query",
          "notes.linkToProject:mutation",
          "notes.list:query",
          "notes.removeAttachment:mutation",
          "notes.restore:mutation",
          "notes.search:query",
          "notes.update:mutation",
          "oauthAdmin.listClients:query",
          "oauthAdmin.listGrants:query",
          "oauthAdmin.listRevocations:query",
          "oauthAdmin.revokeClient:mutation",
          "oauthAdmin.revokeGrant:mutation",
          "oauthAdmin.revokeUser:mutation",
          "review.approve:mutation",
          "review.list:query",
          "review.reject:mutation",
          "sessions.list:query",
          "sessions.panes:query",
          "sessions.status:query",
          "supervisorDashboard.ackEvent:mutation",
          "supervisorDashboard.cancelPark:mutation",
          "supervisorDashboard.listActions:query",
          "supervisorDashboard.listEvents:query",
          "supervisorDashboard.listParks:query",
          "supervisorDashboard.listWatches:query",
          "supervisorDashboard.pause:mutation",
          "supervisorDashboard.resumePark:mutation",
          "supervisorDashboard.reviewAction:mutation",
          "supervisorDashboard.waitEvents:query",
          "transcripts.file:query",
        ],
      }
    `);
  });

  it('pins the effect of every procedure that does more than read (the one authorization decision judges it by it)', () => {
    const table = Object.fromEntries(
      (Object.keys(ROLE_ROUTERS) as Role[]).map((role) => [
        role,
        Object.entries(proceduresOf(role))
          .map(([path, p]) => [path, effectOf(p._def.meta, p._def.type)] as const)
          .filter(([, effect]) => effect !== 'read')
          .map(([path, effect]) => `${path}:${effect}`)
          .sort(),
      ]),
    );
    expect(table).toMatchInlineSnapshot(`
      {
        "gateway": [
          "bindings.bind:write",
          "bindings.unbind:write",
          "human.notify:write",
          "human.request:write",
          "input.run:delivery",
          "input.sendBound:delivery",
          "input.sendKeys:delivery",
          "input.sendTask:delivery",
          "input.sendText:delivery",
          "lifecycle.close:lifecycle",
          "lifecycle.forget:lifecycle",
          "lifecycle.resize:lifecycle",
          "lifecycle.restart:lifecycle",
          "lifecycle.start:lifecycle",
          "notes.addAttachment:write",
          "notes.create:write",
          "notes.delete:write",
          "notes.linkToProject:write",
          "notes.markApplied:write",
          "notes.removeAttachment:write",
          "notes.restore:write",
          "notes.update:write",
          "oauth.approveAuthorization:sign-in",
          "oauth.exchangeToken:sign-in",
          "oauth.registerClient:sign-in",
          "oauth.revokeToken:sign-in",
          "projects.deployPreview:input",
          "projects.dispatch:delivery",
          "supervisor.ackEvent:write",
          "supervisor.runOnce:write",
          "supervisor.setVerifierPolicy:input",
          "supervisor.unwatch:write",
          "supervisor.watch:write",
          "supervisor2.claimEvent:write",
          "supervisor2.executeSend:delivery",
          "supervisor2.reviewAction:input",
          "supervisor2.setPolicy:input",
          "supervisor2.submitDecision:write",
        ],
        "notifier": [
          "notifier.claim:write",
          "notifier.report:write",
          "notifier.started:write",
        ],
        "observer": [
          "oauth.approveAuthorization:sign-in",
          "oauth.exchangeToken:sign-in",
          "oauth.registerClient:sign-in",
          "oauth.revokeToken:sign-in",
        ],
        "web": [
          "auth.changePassword:sign-in",
          "auth.login:sign-in",
          "auth.logout:sign-in",
          "grants.bulkSet:write",
          "grants.revoke:write",
          "grants.set:write",
          "human.answerSecret:delivery",
          "input.sendKeys:delivery",
          "input.sendText:delivery",
          "lifecycle.close:lifecycle",
          "lifecycle.forget:lifecycle",
          "lifecycle.resize:lifecycle",
          "lifecycle.restart:lifecycle",
          "lifecycle.start:lifecycle",
          "notes.addAttachment:write",
          "notes.create:write",
          "notes.delete:write",
          "notes.linkToProject:write",
          "notes.removeAttachment:write",
          "notes.restore:write",
          "notes.update:write",
          "oauthAdmin.revokeClient:write",
          "oauthAdmin.revokeGrant:write",
          "oauthAdmin.revokeUser:write",
          "review.approve:input",
          "review.reject:input",
          "supervisorDashboard.ackEvent:write",
          "supervisorDashboard.cancelPark:write",
          "supervisorDashboard.pause:write",
          "supervisorDashboard.resumePark:input",
          "supervisorDashboard.reviewAction:input",
        ],
      }
    `);
  });

  it('judges no mutation as a read, and types only through the input attempt (delivery)', () => {
    const all = (Object.keys(ROLE_ROUTERS) as Role[]).flatMap((role) => Object.entries(proceduresOf(role)).map(([path, p]) => ({ role, path, p })));
    expect(all.filter(({ p }) => p._def.type === 'mutation' && effectOf(p._def.meta, p._def.type) === 'read').map(({ role, path }) => `${role}: ${path}`)).toEqual([]);
    // Every procedure that can reach a pane's input is declared as delivery, so the door
    // never decides for it and the attempt's authorization cannot be skipped.
    const typing = new Set<unknown>([...Object.values(input).filter((p) => p !== input.context), ...Object.values(dashboardInput)]);
    for (const { role, path, p } of all) if (typing.has(p)) expect(effectOf(p._def.meta, p._def.type), `${role}: ${path}`).toBe('delivery');
  });

  it('builds every row on a base that serves exactly the roles listing it', () => {
    // A procedure's base (trpc.ts servedTo) names its roles; the role files must agree both
    // ways, so a row added to the wrong table is caught here (and refused at run time).
    const servedBy = new Map<ProcedureDef, Set<string>>();
    const misplaced: string[] = [];
    for (const role of Object.keys(ROLE_ROUTERS) as Role[]) {
      for (const [path, proc] of Object.entries(proceduresOf(role))) {
        if (!proc._def.meta?.roles?.includes(role)) misplaced.push(`${role}: ${path}`);
        servedBy.set(proc, (servedBy.get(proc) ?? new Set()).add(role));
      }
    }
    expect(misplaced).toEqual([]);
    const unlisted = [...servedBy].filter(([proc, roles]) => [...(proc._def.meta?.roles ?? [])].sort().join() !== [...roles].sort().join());
    expect(unlisted.map(([proc, roles]) => ({ declared: proc._def.meta?.roles, served: [...roles] }))).toEqual([]);
  });

  it('lets only the dashboard name a grants procedure (no MCP tool can grant)', () => {
    // By path and by identity, so a grants procedure cannot hide under another name.
    const grantProcedures = new Set<unknown>(Object.values(grants));
    const grantsOf = (role: Role) =>
      Object.entries(proceduresOf(role))
        .filter(([path, proc]) => path.startsWith('grants.') || grantProcedures.has(proc))
        .map(([path]) => path);
    expect(grantsOf('gateway')).toEqual([]);
    expect(grantsOf('observer')).toEqual([]);
    expect(grantsOf('web').sort()).toEqual(Object.keys(grants).map((p) => `grants.${p}`).sort());
  });

  it('gives the observer no input, binding or input-audit procedure, by path or by identity', () => {
    const forbidden = new Set<unknown>([input, dashboardInput, bindings, audit].flatMap((r) => Object.values(r)));
    const offending = Object.entries(proceduresOf('observer'))
      .filter(([path, proc]) => /^(input|bindings|audit)\./.test(path) || forbidden.has(proc))
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
