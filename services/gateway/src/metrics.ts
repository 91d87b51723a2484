/**
 * In-process counters for the gateway, rendered in the Prometheus text exposition format
 * (version 0.0.4). Label values come only from closed sets (our tool names, ERROR_CODES,
 * our rejection reasons), so a caller cannot grow the label space.
 */
import type { ErrorCode } from '@terminal-mcp/contract';
import type { RefusalReason } from '@terminal-mcp/mcp-kit';

/** Why the HTTP edge refused a request before any tool ran (the MCP HTTP service's
 * reasons; `session`: an Mcp-Session-Id presented by another principal than its creator's). */
export type RejectionReason = RefusalReason;

export interface ToolMetrics {
  /** One finished tool call; `errorCode` is set when the result was an error. */
  observeToolCall(tool: string, seconds: number, errorCode?: ErrorCode): void;
  observeRejection(reason: RejectionReason): void;
  /** Prometheus text exposition format, ending with a newline. */
  render(): string;
}

/** Seconds. Broker reads are ~1-10 ms; the upper buckets catch a stuck broker or tmux. */
export const LATENCY_BUCKETS_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

interface ToolSeries {
  calls: number;
  errors: Map<ErrorCode, number>;
  /** Non-cumulative counts per bucket; the last slot is +Inf. */
  buckets: number[];
  sum: number;
}

/** Escapes a label value as the exposition format requires: backslash, quote, newline. */
export function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function labels(pairs: Record<string, string>): string {
  const body = Object.entries(pairs)
    .map(([k, v]) => `${k}="${escapeLabelValue(v)}"`)
    .join(',');
  return `{${body}}`;
}

/** Prometheus prints floats in Go's format; plain JS numbers are accepted by parsers,
 * but +Inf must be spelled that way. */
function formatBound(bound: number): string {
  return Number.isFinite(bound) ? String(bound) : '+Inf';
}

export function createToolMetrics(): ToolMetrics {
  const tools = new Map<string, ToolSeries>();
  const rejections = new Map<RejectionReason, number>();

  function series(tool: string): ToolSeries {
    let s = tools.get(tool);
    if (!s) {
      s = { calls: 0, errors: new Map(), buckets: new Array<number>(LATENCY_BUCKETS_SECONDS.length + 1).fill(0), sum: 0 };
      tools.set(tool, s);
    }
    return s;
  }

  return {
    observeToolCall(tool, seconds, errorCode) {
      const s = series(tool);
      s.calls += 1;
      if (errorCode) s.errors.set(errorCode, (s.errors.get(errorCode) ?? 0) + 1);
      const safeSeconds = Number.isFinite(seconds) && seconds > 0 ? seconds : 0;
      s.sum += safeSeconds;
      const index = LATENCY_BUCKETS_SECONDS.findIndex((bound) => safeSeconds <= bound);
      s.buckets[index === -1 ? LATENCY_BUCKETS_SECONDS.length : index]! += 1;
    },

    observeRejection(reason) {
      rejections.set(reason, (rejections.get(reason) ?? 0) + 1);
    },

    render() {
      const names = [...tools.keys()].sort();
      const out: string[] = [];

      out.push('# HELP terminal_mcp_tool_calls_total MCP tool calls handled by the gateway.');
      out.push('# TYPE terminal_mcp_tool_calls_total counter');
      for (const tool of names) out.push(`terminal_mcp_tool_calls_total${labels({ tool })} ${tools.get(tool)!.calls}`);

      out.push('# HELP terminal_mcp_tool_errors_total MCP tool calls that ended in an error result, by error code.');
      out.push('# TYPE terminal_mcp_tool_errors_total counter');
      for (const tool of names) {
        const errors = tools.get(tool)!.errors;
        for (const code of [...errors.keys()].sort()) {
          out.push(`terminal_mcp_tool_errors_total${labels({ tool, error_code: code })} ${errors.get(code)!}`);
        }
      }

      out.push('# HELP terminal_mcp_tool_duration_seconds Time from tool call to result, in seconds.');
      out.push('# TYPE terminal_mcp_tool_duration_seconds histogram');
      for (const tool of names) {
        const s = tools.get(tool)!;
        let cumulative = 0;
        const bounds = [...LATENCY_BUCKETS_SECONDS, Number.POSITIVE_INFINITY];
        bounds.forEach((bound, i) => {
          cumulative += s.buckets[i]!;
          out.push(`terminal_mcp_tool_duration_seconds_bucket${labels({ tool, le: formatBound(bound) })} ${cumulative}`);
        });
        out.push(`terminal_mcp_tool_duration_seconds_sum${labels({ tool })} ${s.sum}`);
        out.push(`terminal_mcp_tool_duration_seconds_count${labels({ tool })} ${s.calls}`);
      }

      out.push('# HELP terminal_mcp_http_rejected_total HTTP requests refused before reaching MCP, by reason.');
      out.push('# TYPE terminal_mcp_http_rejected_total counter');
      for (const reason of [...rejections.keys()].sort()) {
        out.push(`terminal_mcp_http_rejected_total${labels({ reason })} ${rejections.get(reason)!}`);
      }

      return `${out.join('\n')}\n`;
    },
  };
}
