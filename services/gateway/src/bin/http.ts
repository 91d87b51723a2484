#!/usr/bin/env node
/** `terminal-mcp-http`: the MCP gateway over Streamable HTTP (live sessions, stateless fallback), loopback only.
 * Exit status 2 when a setting is refused (e.g. a non-loopback host), 1 on other start
 * failures. Prints its URLs to stdout and logs JSON to stderr; stops cleanly on SIGINT/SIGTERM
 * (@terminal-mcp/mcp-kit's runServiceBin). */
import { runServiceBin } from '@terminal-mcp/mcp-kit';
import { createGatewayLogger } from '../logger.js';
import { startGatewayHttp } from '../http/gateway-http.js';
import { describeProtection, httpSettingsFromEnv } from '../http/options.js';
import { GATEWAY_VERSION } from '../version.js';

const SUMMARY = `The full MCP gateway over Streamable HTTP on loopback (http://127.0.0.1:8766/mcp),
talking to the broker over gateway.sock. Health: /health/live, /health/ready; metrics:
/health/metrics. Environment: TERMINAL_MCP_GATEWAY_HOST, TERMINAL_MCP_GATEWAY_PORT,
TERMINAL_MCP_GATEWAY_TOKEN, TERMINAL_MCP_GATEWAY_ALLOW_OPEN, TERMINAL_MCP_PUBLIC_HOSTS, TERMINAL_MCP_TRUSTED_PROXY,
TERMINAL_MCP_SOCKET_DIR, TERMINAL_MCP_LOG_LEVEL. See docs/operations.md.`;

runServiceBin({
  name: 'terminal-mcp-http',
  version: GATEWAY_VERSION,
  summary: SUMMARY,
  event: 'gateway',
  portVariable: 'TERMINAL_MCP_GATEWAY_PORT',
  createLogger: (sink) => createGatewayLogger(undefined, undefined, sink),
  async start(log) {
    const settings = httpSettingsFromEnv(process.env);
    const running = await startGatewayHttp({ ...settings, env: process.env, log });
    return {
      close: () => running.close(),
      listening: { mcpUrl: running.mcpUrl, healthUrl: running.healthUrl, protection: running.protection },
      banner: [
        `MCP endpoint ${running.mcpUrl}`,
        `health ${running.healthUrl}`,
        describeProtection(running.protection, settings.token !== undefined),
        ...(running.oauth ? [`OAuth on for ${running.oauth.resource} (authorization server ${running.oauth.issuer}); connect ChatGPT to that URL`] : []),
      ],
    };
  },
});
