/** Every procedure the broker has, as plain records by capability. Which role may call
 * which is decided row by row in rpc/roles/*.ts, and by each procedure's base (trpc.ts). */
export { audit, auditOperator } from './audit.js';
export { auth } from './auth.js';
export { bindings } from './bindings.js';
export { catalogue } from './catalogue.js';
export { grants } from './grants.js';
export { health } from './health.js';
export { dashboardInput, input } from './input.js';
export { live } from './live.js';
export { dashboardNodes, nodes } from './nodes.js';
export { oauthAdminProcedures, oauthServerProcedures } from './oauth.js';
export { dashboardTranscripts, sessions } from './sessions.js';
export { source } from './source.js';
export { supervisor, supervisor2, supervisorDashboard } from './supervisor.js';
export { wait } from './wait.js';
export { dashboardNotes, notes } from './notes.js';
export { projects } from './projects.js';
export { dashboardLifecycle, lifecycle } from './lifecycle.js';
export { humanDashboard, humanGateway } from './human.js';
export { dashboardReview, review } from './review.js';
