/** Everything the MCP gateway may ask the broker: the operation table's rows whose roles
 * name `gateway` (shared/contract/src/operations/table.ts; from-table.ts builds the router).
 * Reading the table is auditing the gateway's privilege: every row is a request a gateway
 * tool or its readiness endpoint makes (test/src/role-calls.test.ts derives them from the
 * gateway's source and fails on any difference). Not served: grants.*, auth.*, live.*,
 * oauthAdmin.*, source.* (no gateway tool reads project sources). */
import { router } from '../trpc.js';
import { roleShape } from './from-table.js';

export const gatewayRouter = router(roleShape('gateway'));
export type GatewayRouter = typeof gatewayRouter;
