#!/usr/bin/env node
/** `terminal-mcp-observer`: the read-only MCP server with its OAuth authorization server,
 * loopback only (http://127.0.0.1:8767 by default). Exit status 2 when a setting is
 * refused (e.g. a non-loopback host or a non-https public URL), 1 on other start
 * failures. Prints its URL to stdout and logs JSON to stderr; stops cleanly on SIGINT/SIGTERM
 * (@terminal-mcp/mcp-kit's runServiceBin). */
import { runServiceBin } from '@terminal-mcp/mcp-kit';
import { startObserverHttp } from '../http/observer-http.js';
import { observerSettingsFromEnv } from '../http/options.js';
import { createObserverLogger } from '../logger.js';
import { OBSERVER_VERSION } from '../version.js';

const SUMMARY = `The read-only MCP server with its OAuth 2.1 authorization server, on loopback
(http://127.0.0.1:8767/mcp), for claude.ai and the Claude apps through an HTTPS tunnel.
Health: /health/live, /health/ready. Environment: TERMINAL_MCP_OBSERVER_HOST,
TERMINAL_MCP_OBSERVER_PORT, TERMINAL_MCP_OBSERVER_PUBLIC_URL, TERMINAL_MCP_PUBLIC_HOSTS,
TERMINAL_MCP_SOCKET_DIR, TERMINAL_MCP_LOG_LEVEL. See docs/claude-web-connector.md.`;

runServiceBin({
  name: 'terminal-mcp-observer',
  version: OBSERVER_VERSION,
  summary: SUMMARY,
  event: 'observer',
  portVariable: 'TERMINAL_MCP_OBSERVER_PORT',
  createLogger: (sink) => createObserverLogger(undefined, sink),
  async start(log) {
    const settings = observerSettingsFromEnv(process.env);
    const running = await startObserverHttp({ ...settings, env: process.env, log });
    return {
      close: () => running.close(),
      listening: { mcpUrl: running.mcpUrl, publicUrl: running.publicUrl },
      banner: [
        `MCP endpoint ${running.mcpUrl} (listening on ${running.host}:${running.port})`,
        ...(settings.publicUrl
          ? []
          : [`TERMINAL_MCP_OBSERVER_PUBLIC_URL is not set: OAuth metadata names ${running.publicUrl}, reachable from this machine only; set it to your tunnel's https URL for claude.ai`]),
      ],
    };
  },
});
