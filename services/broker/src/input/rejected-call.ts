/**
 * A call to an input procedure that its schema refused (wrong type, unknown field, text
 * over the transport cap; or a task text with nothing visible) is still an input attempt
 * someone made: it is written to the
 * input audit as BLOCKED / INVALID_ARGUMENT (terminal_input_context, a read, to the read
 * audit), with the target only when it is a well-formed name and nothing of the text —
 * the values are hostile by assumption. A send refused before it could start (the
 * supervisor's preflight, input/authorize.ts) is recorded the same way, with its code.
 * The security log line comes from rpc/trpc.ts.
 */
import { bindingNameSchema, sessionNameSchema, type ErrorCode } from '@terminal-mcp/contract';
import { boundOrNull } from '../access/target.js';
import { recordRead } from '../audit/record-read.js';
import type { InputCaller } from './input-deps.js';

/** The public tool behind each input procedure (the path within the input router). */
const TOOLS: Readonly<Record<string, string>> = {
  sendText: 'terminal_send_text',
  sendBound: 'terminal_send_bound',
  sendKeys: 'terminal_send_keys',
  sendTask: 'terminal_send_task',
  run: 'terminal_run',
  context: 'terminal_input_context',
};

function field(raw: unknown, key: 'session' | 'binding'): string | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const value = (raw as Record<string, unknown>)[key];
  const schema = key === 'session' ? sessionNameSchema : bindingNameSchema;
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** `tool` names the caller's own tool when it is not the gateway's (the dashboard's
 * `dashboard_text`, `dashboard_keys`). */
export function recordRejectedInputCall(ctx: InputCaller, path: string, raw: unknown, errorCode: ErrorCode = 'INVALID_ARGUMENT', toolName?: string): void {
  const procedure = path.slice(path.lastIndexOf('.') + 1);
  const tool = toolName ?? TOOLS[procedure] ?? `input.${procedure.slice(0, 64)}`;
  const session = field(raw, 'session');
  if (procedure === 'context') {
    recordRead(ctx, tool, { session, errorCode });
    return;
  }
  const binding = field(raw, 'binding');
  try {
    const services = ctx.deps.input;
    const now = Date.now();
    services.audit.insertAttempt({
      at: now,
      role: ctx.role,
      actor: ctx.actor,
      tool,
      sessionName: session ?? (binding !== null ? boundOrNull(services.bindings.get(binding)) : null),
      binding,
      serverPid: null,
      sessionId: null,
      sessionCreated: null,
      paneId: null,
      panePid: null,
      decision: 'BLOCKED',
      errorCode,
      textLength: null,
      textHmac: null,
      preview: null,
      keys: null,
      finishedAt: now,
      receipt: null,
      receiptJson: null,
    });
  } catch (err) {
    ctx.deps.log.error({ event: 'audit.write_failed', tool, err: (err as Error).message }, 'schema-rejected input call not audited');
  }
}
