/** Everything the read-only observer may ask the broker, one row per procedure. This
 * router must contain no procedure that changes tmux, git, grants, notes or policy: not
 * "refuses" — cannot name. A test lists it and fails on any mutation other than the
 * OAuth token procedures; another derives the rows from the observer's source. */
import { health, notes, oauthServerProcedures as oauth, sessions, source } from '../procedures/index.js';
import { router } from '../trpc.js';

export const observerRouter = router({
  sessions: {
    list: sessions.list,
    tail: sessions.tail,
    capture: sessions.capture,
    status: sessions.status,
    batchInspect: sessions.batchInspect,
    readSince: sessions.readSince,
  },
  /** Read-only project sources (git history, working-tree files): queries only. */
  source: {
    listProjects: source.listProjects,
    gitStatus: source.gitStatus,
    gitLog: source.gitLog,
    showCommit: source.showCommit,
    diff: source.diff,
    listRefs: source.listRefs,
    blame: source.blame,
    listFiles: source.listFiles,
    readFile: source.readFile,
    searchText: source.searchText,
  },
  /** The OAuth authorization server's state (clients, codes, tokens): the only mutations
   * this socket can name. Approving an authorization checks the operator's password in the
   * same call, so there is no separate login oracle here. */
  oauth: {
    registerClient: oauth.registerClient, // mutation
    describeAuthorization: oauth.describeAuthorization,
    approveAuthorization: oauth.approveAuthorization, // mutation
    exchangeToken: oauth.exchangeToken, // mutation
    revokeToken: oauth.revokeToken, // mutation
    verifyAccessToken: oauth.verifyAccessToken,
  },
  /** Notes: search and read only (the observer can name no note write). */
  notes: {
    search: notes.search,
    get: notes.get,
  },
  health: {
    ready: health.ready,
  },
  // Not served: input.*, bindings.*, audit.*, wait.*, grants.*, auth.*, live.*.
});
export type ObserverRouter = typeof observerRouter;
