/**
 * The catalogue one caller is served: the tools of its toolsets (config.yaml
 * `gateway.toolsets`, tools/toolsets.ts) that its OAuth scopes let it use. A small pure
 * function of (toolsets, scopes), applied where the McpServer is built (server.ts), so an
 * authenticated principal only has to say which toolsets and scopes it carries.
 *
 * A tool that is not listed is still known by name: a client that cached a larger
 * catalogue (hosted clients freeze tools/list) gets a refusal that says why and what to do,
 * never an "unknown tool", and never the tool's effect.
 */
import type { BrokerFailure } from '@terminal-mcp/broker-client';
import { AppError, GATEWAY_TOOLSETS, type GatewayToolset } from '@terminal-mcp/contract';
import { lacksInputScope } from './http/oauth-profile.js';
import { GATEWAY_TOOLS, type GatewayTool } from './tools/index.js';
import { toolsetOf } from './tools/toolsets.js';

export interface GatewayCatalogue {
  /** Listed and callable, in the table's order. */
  readonly tools: readonly GatewayTool[];
  /** Known but not served to this caller, with the refusal a call gets. */
  readonly hidden: ReadonlyMap<string, BrokerFailure>;
  /** Not listed for this caller's OAuth scopes (the tools that type, for a read-only token)
   * but still callable by name: the broker decides, refuses and audits such a call like
   * every other input attempt (terminal_send_task answers a BLOCKED receipt), so the
   * gateway keeps no second, unaudited check. */
  readonly unlisted: readonly GatewayTool[];
}

export interface CatalogueChoice {
  toolsets: ReadonlySet<GatewayToolset>;
  /** An OAuth token's scopes; undefined for callers without scopes (stdio, static token). */
  scopes?: readonly string[];
}

/** Every tool, for callers the config does not narrow (and the tests that measure all). */
export const FULL_CATALOGUE: GatewayCatalogue = { tools: GATEWAY_TOOLS, hidden: new Map(), unlisted: [] };

const failureOf = (err: AppError): BrokerFailure => ({ code: err.code, message: err.message, hint: err.hint });

function toolsetRefusal(tool: string, toolset: GatewayToolset | undefined): AppError {
  return new AppError(
    'FORBIDDEN',
    `${tool} belongs to the ${toolset ?? 'unknown'} toolset, which is not enabled for this client`,
    'Use the tools listed by tools/list. The operator enables toolsets under gateway.toolsets in config.yaml; then reconnect the client (or refresh its tool list) to see them.',
  );
}

/** The tools a client with this choice sees, refuses by name, or passes unlisted. */
export function gatewayCatalogue(choice: CatalogueChoice, all: readonly GatewayTool[] = GATEWAY_TOOLS): GatewayCatalogue {
  const tools: GatewayTool[] = [];
  const hidden = new Map<string, BrokerFailure>();
  const unlisted: GatewayTool[] = [];
  for (const tool of all) {
    const toolset = toolsetOf(tool.name);
    if (toolset === undefined || !choice.toolsets.has(toolset)) hidden.set(tool.name, failureOf(toolsetRefusal(tool.name, toolset)));
    else if (choice.scopes && lacksInputScope(tool.name, choice.scopes)) unlisted.push(tool);
    else tools.push(tool);
  }
  return { tools, hidden, unlisted };
}

/**
 * The catalogues of one HTTP gateway (startGatewayHttp owns it): a handful of distinct
 * (toolsets, scopes) pairs exist, and stateless HTTP builds a server per request, so each
 * catalogue (and with it each tool's cached listing) is built once per pair and reused.
 * Bounded: cleared when full (the bound is only a guard).
 */
export function createCatalogues(max = 64): (choice: CatalogueChoice) => GatewayCatalogue {
  const memo = new Map<string, GatewayCatalogue>();
  return (choice) => {
    const sets = GATEWAY_TOOLSETS.filter((s) => choice.toolsets.has(s));
    const key = JSON.stringify([sets, choice.scopes ? [...choice.scopes].sort() : null]);
    let catalogue = memo.get(key);
    if (catalogue === undefined) {
      catalogue = gatewayCatalogue(choice);
      if (memo.size >= max) memo.clear();
      memo.set(key, catalogue);
    }
    return catalogue;
  };
}
