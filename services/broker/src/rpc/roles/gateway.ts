/** Everything the MCP gateway may ask the broker, one row per procedure. Reading this
 * file is auditing the gateway's privilege: every row is a request a gateway tool or its
 * readiness endpoint makes (test/src/role-calls.test.ts derives them from the gateway's
 * source and fails on any difference). */
import { audit, bindings, catalogue, health, humanGateway, input, lifecycle, nodes, notes, oauthServerProcedures as oauth, projects, review, sessions, supervisor, supervisor2, wait } from '../procedures/index.js';
import { router } from '../trpc.js';

export const gatewayRouter = router({
  sessions: {
    list: sessions.list,
    tail: sessions.tail,
    capture: sessions.capture,
    status: sessions.status,
    panes: sessions.panes,
    batchInspect: sessions.batchInspect,
    readSince: sessions.readSince,
    exportTranscript: sessions.exportTranscript,
  },
  /** Wait for a session's status (read-gated queries; PENDING + resume token after 20 s). */
  wait: {
    forState: wait.forState,
    resume: wait.resume,
  },
  /** Guarded, audited input: every send passes the input gates, the audit log, the pane
   * lease and an identity re-check. */
  input: {
    context: input.context,
    sendText: input.sendText, // mutation
    sendBound: input.sendBound, // mutation
    sendKeys: input.sendKeys, // mutation
    sendTask: input.sendTask, // mutation
    run: input.run, // mutation
  },
  /** Launch profiles' sessions: start, close, restart, resize (off until
   * permissions.session_lifecycle; audited like input; never a client's command line). */
  lifecycle: {
    start: lifecycle.start, // mutation
    close: lifecycle.close, // mutation
    restart: lifecycle.restart, // mutation
    resize: lifecycle.resize, // mutation
    forget: lifecycle.forget, // mutation: a gone session's registry tombstone
  },
  /** Review mode: the proposer waits for a person's decision (never approves). */
  review: {
    waitForApproval: review.waitForApproval,
  },
  /** Named, identity-pinned bindings: bind/unbind change bindings.db only. */
  bindings: {
    bind: bindings.bind, // mutation
    unbind: bindings.unbind, // mutation
    get: bindings.get,
    list: bindings.list,
    tail: bindings.tail,
    status: bindings.status,
  },
  /** The input audit log, the caller's own rows only. */
  audit: {
    listInput: audit.listInput,
  },
  /** The notes/ideas store: every note_* tool (notes.db and its image files only). */
  notes: {
    search: notes.search,
    get: notes.get,
    list: notes.list,
    facets: notes.facets,
    create: notes.create, // mutation
    update: notes.update, // mutation
    delete: notes.delete, // mutation
    restore: notes.restore, // mutation
    addAttachment: notes.addAttachment, // mutation
    removeAttachment: notes.removeAttachment, // mutation
    linkToProject: notes.linkToProject, // mutation
    markApplied: notes.markApplied, // mutation
  },
  /** One call per project intent over config's project_profiles: check reads; dispatch
   * types through input.sendTask's path; deployPreview runs a fixed command of the profile. */
  projects: {
    check: projects.check,
    dispatch: projects.dispatch, // mutation
    deployPreview: projects.deployPreview, // mutation
  },
  /** Supervisor v1: watches and events in supervisor.db; reads are read-gated per target. */
  supervisor: {
    watch: supervisor.watch, // mutation
    unwatch: supervisor.unwatch, // mutation
    listWatches: supervisor.listWatches,
    status: supervisor.status,
    listEvents: supervisor.listEvents,
    ackEvent: supervisor.ackEvent, // mutation
    runOnce: supervisor.runOnce, // mutation
    waitEvents: supervisor.waitEvents,
    setVerifierPolicy: supervisor.setVerifierPolicy, // mutation
  },
  /** Supervisor v2: claim → decide → approve → send; executeSend types only through input.sendText's guarded path. */
  supervisor2: {
    setPolicy: supervisor2.setPolicy, // mutation
    getPolicy: supervisor2.getPolicy,
    listActionableEvents: supervisor2.listActionableEvents,
    claimEvent: supervisor2.claimEvent, // mutation
    submitDecision: supervisor2.submitDecision, // mutation
    reviewAction: supervisor2.reviewAction, // mutation
    executeSend: supervisor2.executeSend, // mutation
    listActions: supervisor2.listActions,
  },
  /** The operator's toolsets per caller (config.yaml gateway.toolsets): which tools the
   * gateway lists to whom. */
  catalogue: {
    toolsets: catalogue.toolsets,
  },
  /** Node health: transport state and an execution probe through each node's tmux. */
  nodes: {
    health: nodes.health,
  },
  health: {
    ready: health.ready,
    /** pid, version, tmux socket: for the operator's `terminal-mcp status|doctor|stop`. */
    info: health.info,
  },
  /** The gateway's OAuth authorization server (TERMINAL_MCP_GATEWAY_PUBLIC_URL): the same
   * procedures as the observer's, with the gateway's redirect rules and scopes. */
  oauth: {
    registerClient: oauth.registerClient, // mutation
    describeAuthorization: oauth.describeAuthorization,
    approveAuthorization: oauth.approveAuthorization, // mutation
    exchangeToken: oauth.exchangeToken, // mutation
    revokeToken: oauth.revokeToken, // mutation
    verifyAccessToken: oauth.verifyAccessToken,
  },
  /** The hand-off to a person: a notice for the dashboard and the notification channels
   * (read-gated like terminal_status; nothing is typed). */
  human: {
    request: humanGateway.request, // mutation
    notify: humanGateway.notify, // mutation: notify_user, rate-limited per client
  },
  // Not served: source.* (no gateway tool reads project sources), grants.*, auth.*, live.*, oauthAdmin.*.
});
export type GatewayRouter = typeof gatewayRouter;
