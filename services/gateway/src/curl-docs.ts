/**
 * The curl section of the gateway's /skills.md (issue 49): copy-paste examples of the
 * scripts' API (/api/v1, http/api) for a script, a cron job or an agent without MCP. Only
 * the examples whose tools the caller is served are shown, with this gateway's own URL;
 * test/src/api-skills-curl.test.ts runs them with real curl against a real gateway.
 */
import type { GatewayTool } from './tools/index.js';

interface CurlExample {
  needs: string;
  what: string;
  command: string;
}

const AUTH = '-H "Authorization: Bearer $TOKEN"';
const JSON_BODY = "-H 'Content-Type: application/json'";

const EXAMPLES: readonly CurlExample[] = [
  { needs: 'terminal_list_sessions', what: 'List the sessions (access r: readable, i: input allowed)', command: `curl -fsS ${AUTH} "$API/sessions"` },
  { needs: 'terminal_tail', what: 'The last 50 lines of a session', command: `curl -fsS ${AUTH} "$API/sessions/$SESSION/tail?lines=50"` },
  { needs: 'terminal_status', what: 'Is it waiting for input, running, idle?', command: `curl -fsS ${AUTH} "$API/sessions/$SESSION/status"` },
  {
    needs: 'terminal_wait_for_state',
    what: 'Wait up to 10 s until it is idle or waiting (PENDING with a resume token after that)',
    command: `curl -fsS ${AUTH} "$API/sessions/$SESSION/wait?states=IDLE&states=WAITING_INPUT&timeout_s=10"`,
  },
  {
    needs: 'terminal_send_text',
    what: 'Type a line and press Enter (dry_run: true only checks the gates)',
    command: `curl -fsS ${AUTH} ${JSON_BODY} -d '{"text":"echo hello from curl","enter":true}' "$API/sessions/$SESSION/send"`,
  },
  {
    needs: 'terminal_run',
    what: 'Run a command at the shell prompt and get its output and exit status',
    command: `curl -fsS ${AUTH} ${JSON_BODY} -d "{\\"session\\":\\"$SESSION\\",\\"command\\":\\"echo ran-by-curl\\"}" "$API/input/run"`,
  },
  { needs: 'terminal_list_input_audit', what: "This caller's own input attempts", command: `curl -fsS ${AUTH} "$API/audit/input?limit=5"` },
];

/** The section for these tools, with the gateway's origin (e.g. http://127.0.0.1:8766). */
export function renderCurlSection(tools: readonly GatewayTool[], origin: string): string {
  const served = new Set(tools.map((t) => t.name));
  const examples = EXAMPLES.filter((e) => served.has(e.needs));
  if (examples.length === 0) return '';
  return [
    '## Without MCP: the HTTP API (curl)',
    '',
    `Every tool above is also a JSON route under ${origin}/api/v1, with the same token, toolsets, audit and error codes; the OpenAPI 3.1 document is GET /api/v1/openapi.json. A refusal answers \`{"code", "message", "hint"}\` with the HTTP status of its code (curl -f then exits 22).`,
    '',
    '```sh',
    "# The token: the Authorization header that `terminal-mcp client-config http` prints.",
    `TOKEN="$(terminal-mcp client-config http | sed -n 's/^# Header: Authorization: Bearer //p')"`,
    `API=${origin}/api/v1`,
    'SESSION=main  # the session to drive: a name from the list below',
    '',
    ...examples.flatMap((e) => [`# ${e.what}`, e.command]),
    '```',
    '',
  ].join('\n');
}
