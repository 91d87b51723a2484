/** The operation table and what is derived from it without I/O (see table.ts). */
import { GATEWAY_TOOLSETS, type GatewayToolset } from '../toolsets.js';
import type { Operation } from './define-operation.js';
import { OPERATIONS } from './table.js';

export * from './define-operation.js';
export { OPERATIONS } from './table.js';

/** An operation the gateway serves as a tool, and so on the scripts' API. */
export type GatewayToolOperation = Operation & { tool: { name: string; toolset: GatewayToolset }; http: NonNullable<Operation['http']> };

export const GATEWAY_TOOL_OPERATIONS: readonly GatewayToolOperation[] = (OPERATIONS as readonly Operation[]).filter(
  (op): op is GatewayToolOperation => op.roles.includes('gateway') && op.tool?.toolset !== undefined && op.http !== undefined,
);

/** Which tools each toolset lists (config.yaml `gateway.toolsets`), in table order. */
export const TOOLSET_TOOLS: Readonly<Record<GatewayToolset, readonly string[]>> = toolsetTools();

function toolsetTools(): Record<GatewayToolset, readonly string[]> {
  const out = {} as Record<GatewayToolset, readonly string[]>;
  for (const set of GATEWAY_TOOLSETS) out[set] = GATEWAY_TOOL_OPERATIONS.filter((op) => op.tool.toolset === set).map((op) => op.tool.name);
  return out;
}

/**
 * The tools that type into a pane or start, stop, resize sessions (effects `delivery` and
 * `lifecycle`): an OAuth token without the input scope is not listed them, and the broker
 * refuses and audits a call anyway (services/gateway/src/http/oauth-profile.ts).
 */
export const INPUT_TOOL_NAMES: ReadonlySet<string> = new Set(GATEWAY_TOOL_OPERATIONS.filter((op) => op.effect === 'delivery' || op.effect === 'lifecycle').map((op) => op.tool.name));

/** The operation behind a gateway tool. */
export function gatewayOperationOfTool(toolName: string): GatewayToolOperation | undefined {
  return GATEWAY_TOOL_OPERATIONS.find((op) => op.tool.name === toolName);
}
export { OPERATION_INDEX_BEGIN, OPERATION_INDEX_END, renderOperationIndex } from './index-markdown.js';
