// Guards: gateway metrics render as valid Prometheus text with HELP/TYPE lines, per-tool calls, errors by code and a cumulative latency histogram.
import { describe, expect, it } from 'vitest';
import { createToolMetrics, escapeLabelValue, LATENCY_BUCKETS_SECONDS } from './metrics.js';

describe('createToolMetrics', () => {
  it('renders HELP and TYPE for every family even before any call', () => {
    const text = createToolMetrics().render();
    for (const [name, type] of [
      ['terminal_mcp_tool_calls_total', 'counter'],
      ['terminal_mcp_tool_errors_total', 'counter'],
      ['terminal_mcp_tool_duration_seconds', 'histogram'],
      ['terminal_mcp_http_rejected_total', 'counter'],
    ]) {
      expect(text).toContain(`# HELP ${name} `);
      expect(text).toContain(`# TYPE ${name} ${type}\n`);
    }
    expect(text.endsWith('\n')).toBe(true);
  });

  it('counts calls and errors by code per tool', () => {
    const m = createToolMetrics();
    m.observeToolCall('terminal_tail', 0.002);
    m.observeToolCall('terminal_tail', 0.003, 'SESSION_NOT_ALLOWED');
    m.observeToolCall('terminal_tail', 0.004, 'SESSION_NOT_ALLOWED');
    m.observeToolCall('terminal_list_sessions', 0.001, 'BROKER_UNAVAILABLE');
    const text = m.render();
    expect(text).toContain('terminal_mcp_tool_calls_total{tool="terminal_tail"} 3\n');
    expect(text).toContain('terminal_mcp_tool_calls_total{tool="terminal_list_sessions"} 1\n');
    expect(text).toContain('terminal_mcp_tool_errors_total{tool="terminal_tail",error_code="SESSION_NOT_ALLOWED"} 2\n');
    expect(text).toContain('terminal_mcp_tool_errors_total{tool="terminal_list_sessions",error_code="BROKER_UNAVAILABLE"} 1\n');
  });

  it('renders a cumulative histogram with +Inf, sum and count', () => {
    const m = createToolMetrics();
    m.observeToolCall('terminal_status', 0.0005); // first bucket
    m.observeToolCall('terminal_status', 0.02); // 0.025 bucket
    m.observeToolCall('terminal_status', 60); // only +Inf
    const text = m.render();
    const bucket = (le: string) => {
      const match = new RegExp(`terminal_mcp_tool_duration_seconds_bucket\\{tool="terminal_status",le="${le.replace('+', '\\+')}"\\} (\\d+)`).exec(text);
      return Number(match?.[1]);
    };
    expect(bucket('0.001')).toBe(1);
    expect(bucket('0.01')).toBe(1);
    expect(bucket('0.025')).toBe(2);
    expect(bucket('10')).toBe(2);
    expect(bucket('+Inf')).toBe(3);
    expect(text).toContain('terminal_mcp_tool_duration_seconds_count{tool="terminal_status"} 3\n');
    expect(text).toMatch(/terminal_mcp_tool_duration_seconds_sum\{tool="terminal_status"\} 60\.020/);
    // One bucket line per bound plus +Inf.
    expect(text.match(/_bucket\{tool="terminal_status"/g)).toHaveLength(LATENCY_BUCKETS_SECONDS.length + 1);
  });

  it('counts HTTP rejections by reason', () => {
    const m = createToolMetrics();
    m.observeRejection('host');
    m.observeRejection('host');
    m.observeRejection('token');
    const text = m.render();
    expect(text).toContain('terminal_mcp_http_rejected_total{reason="host"} 2\n');
    expect(text).toContain('terminal_mcp_http_rejected_total{reason="token"} 1\n');
  });

  it('every sample line is "name{labels} number"', () => {
    const m = createToolMetrics();
    m.observeToolCall('terminal_tail', 0.01, 'INTERNAL');
    m.observeRejection('origin');
    for (const line of m.render().trim().split('\n')) {
      if (line.startsWith('#')) continue;
      expect(line).toMatch(/^[a-z_]+\{[a-z_]+="[^"]*"(,[a-z_]+="[^"]*")*\} [0-9.e+-]+$/);
    }
  });
});

describe('escapeLabelValue', () => {
  it('escapes backslash, double quote and newline', () => {
    expect(escapeLabelValue('a\\b"c\nd')).toBe('a\\\\b\\"c\\nd');
  });
});
