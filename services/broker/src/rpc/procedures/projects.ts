/** The project intents, for the MCP gateway only: check (reads), dispatch (the guarded,
 * audited send_task path, authorized at delivery) and deploy preview (a fixed command of
 * the profile: it acts on the host, so it needs the input effect). */
import { deployPreviewInputSchema, projectDispatchInputSchema, projectInputSchema } from '@terminal-mcp/contract';
import { runDeployPreview } from '../../projects/deploy-preview.js';
import { dispatchToProject } from '../../projects/dispatch.js';
import { checkProject } from '../../projects/project-check.js';
import { gatewayProcedure } from '../trpc.js';

export const projects = {
  check: gatewayProcedure.input(projectInputSchema).query(({ ctx, input }) => checkProject(ctx, input.project)),
  dispatch: gatewayProcedure.meta({ effect: 'delivery' }).input(projectDispatchInputSchema).mutation(({ ctx, input }) => dispatchToProject(ctx, input)),
  deployPreview: gatewayProcedure.meta({ effect: 'input' }).input(deployPreviewInputSchema).mutation(({ ctx, input }) => runDeployPreview(ctx, input, ctx.deps.running)),
};
