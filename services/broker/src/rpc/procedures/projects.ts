/** The project intents, for the MCP gateway only: check (reads), dispatch (the guarded,
 * audited send_task path) and deploy preview (a fixed command of the profile). */
import { deployPreviewInputSchema, projectDispatchInputSchema, projectInputSchema } from '@terminal-mcp/contract';
import { runDeployPreview } from '../../projects/deploy-preview.js';
import { dispatchToProject } from '../../projects/dispatch.js';
import { checkProject } from '../../projects/project-check.js';
import { gatewayProcedure } from '../trpc.js';

export const projects = {
  check: gatewayProcedure.input(projectInputSchema).query(({ ctx, input }) => checkProject(ctx, input.project)),
  dispatch: gatewayProcedure.input(projectDispatchInputSchema).mutation(({ ctx, input }) => dispatchToProject(ctx, input)),
  deployPreview: gatewayProcedure.input(deployPreviewInputSchema).mutation(({ ctx, input }) => runDeployPreview(ctx, input)),
};
