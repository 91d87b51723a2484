/** Everything the dashboard's server may ask the broker, one row per procedure. Rows
 * marked "operator" need the signed-in operator's session token with the call
 * (rpc/operator.ts): the broker derives the acting user from it. */
import { auditOperator, auth, dashboardInput, dashboardLifecycle, dashboardNodes, dashboardNotes, dashboardReview, dashboardTranscripts, grants, health, humanDashboard, live, oauthAdminProcedures as oauthAdmin, sessions, supervisorDashboard } from '../procedures/index.js';
import { router } from '../trpc.js';

export const webRouter = router({
  /** Sign-in: the token or password travels in the input. */
  auth: {
    login: auth.login, // mutation
    logout: auth.logout, // mutation
    validateSession: auth.validateSession,
    changePassword: auth.changePassword, // mutation
  },
  /** Per-session read/input grants: the dashboard is the only place access is granted. */
  grants: {
    list: grants.list, // operator
    set: grants.set, // operator, mutation
    revoke: grants.revoke, // operator, mutation
    bulkSet: grants.bulkSet, // operator, mutation
    events: grants.events, // operator
  },
  /** The text box and the take-over: through the guarded, audited input path. */
  input: {
    sendText: dashboardInput.sendText, // operator, mutation
    sendKeys: dashboardInput.sendKeys, // operator, mutation: the full view's take-over
  },
  /** "New session" from a launch profile, close and restart with confirmation, and the
   * recovery state on the session cards (same gates and audit as the gateway's tools). */
  lifecycle: {
    profiles: dashboardLifecycle.profiles, // operator
    managed: dashboardLifecycle.managed, // operator
    start: dashboardLifecycle.start, // operator, mutation
    close: dashboardLifecycle.close, // operator, mutation
    restart: dashboardLifecycle.restart, // operator, mutation
    resize: dashboardLifecycle.resize, // operator, mutation: the full view's window size
    forget: dashboardLifecycle.forget, // operator, mutation: Remove on the Gone sessions page
  },
  /** Other hosts: each node's health with its sessions under it (the nodes page). */
  nodes: {
    overview: dashboardNodes.overview, // operator
  },
  /** Review mode's queue: an operator approves or rejects what an MCP client proposed. */
  review: {
    list: dashboardReview.list, // operator
    approve: dashboardReview.approve, // operator, mutation
    reject: dashboardReview.reject, // operator, mutation
  },
  /** The /audit page: every input attempt and a per-day summary of reads. */
  audit: {
    listInput: auditOperator.listInput, // operator
    readSummary: auditOperator.readSummary, // operator
  },
  /** The session list and its status column. */
  sessions: {
    list: sessions.list,
    status: sessions.status, // operator (it quotes the screen)
    panes: sessions.panes, // operator (window names are program-set text)
  },
  /** Gone sessions' transcripts: read-only view and .cast download (docs/transcripts.md). */
  transcripts: {
    file: dashboardTranscripts.file, // operator
  },
  /** Live pane output: redacted screen frames over WebSocket, read-gated per frame. */
  live: {
    paneOutput: live.paneOutput, // subscription
  },
  /** The supervisor view: watches, events (and a live wait), acknowledge, review, pause.
   * Never claim, decide or send: those are the gateway's supervisor2_* tools. */
  supervisorDashboard: {
    listWatches: supervisorDashboard.listWatches, // operator
    listEvents: supervisorDashboard.listEvents, // operator
    waitEvents: supervisorDashboard.waitEvents, // operator
    ackEvent: supervisorDashboard.ackEvent, // operator, mutation
    listActions: supervisorDashboard.listActions, // operator
    reviewAction: supervisorDashboard.reviewAction, // operator, mutation
    pause: supervisorDashboard.pause, // operator, mutation
    listParks: supervisorDashboard.listParks, // operator
    resumePark: supervisorDashboard.resumePark, // operator, mutation: types through the input attempt
    cancelPark: supervisorDashboard.cancelPark, // operator, mutation
  },
  /** The observer's OAuth clients and grants: list and revoke. */
  oauthAdmin: {
    listClients: oauthAdmin.listClients, // operator
    listGrants: oauthAdmin.listGrants, // operator
    listRevocations: oauthAdmin.listRevocations, // operator: /history
    revokeClient: oauthAdmin.revokeClient, // operator, mutation
    revokeUser: oauthAdmin.revokeUser, // operator, mutation
    revokeGrant: oauthAdmin.revokeGrant, // operator, mutation
  },
  /** The dashboard's own /health endpoint: does the broker answer. */
  health: {
    ready: health.ready,
  },
  /** The /notes pages: browse, search, edit, delete/restore, upload and the attachment bytes. */
  notes: {
    list: dashboardNotes.list, // operator
    search: dashboardNotes.search, // operator
    get: dashboardNotes.get, // operator
    facets: dashboardNotes.facets, // operator
    attachment: dashboardNotes.attachment, // operator
    create: dashboardNotes.create, // operator, mutation
    update: dashboardNotes.update, // operator, mutation
    linkToProject: dashboardNotes.linkToProject, // operator, mutation
    delete: dashboardNotes.delete, // operator, mutation
    restore: dashboardNotes.restore, // operator, mutation
    addAttachment: dashboardNotes.addAttachment, // operator, mutation
    removeAttachment: dashboardNotes.removeAttachment, // operator, mutation
  },
  /** Notices for a person, and the secret entry: a password prompt answered by the
   * operator (fresh password; guarded commands admitted for this principal only). */
  human: {
    notices: humanDashboard.notices, // operator
    answerSecret: humanDashboard.answerSecret, // operator, mutation
    promptReader: humanDashboard.promptReader, // operator
  },
  // Not served: sessions.tail/capture/batchInspect, input.sendTask/sendBound/context,
  // bindings.*, wait.*, source.*, health.info.
});
export type WebRouter = typeof webRouter;
