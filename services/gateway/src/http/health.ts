/**
 * Operational endpoints: liveness (this process answers), readiness (the broker answers
 * and says tmux and its stores are fine), Prometheus metrics and the build version.
 * Readiness keeps "the broker said not ready" and "the broker could not be reached"
 * apart, like tool errors do.
 */
import type { ServerResponse } from 'node:http';
import type { BrokerClient, BrokerFailure } from '@terminal-mcp/broker-client';
import { ERROR_SPECS } from '@terminal-mcp/contract';
import { describeToolFailure } from '@terminal-mcp/mcp-kit';
import type { Logger } from 'pino';
import type { ToolMetrics } from '../metrics.js';
import type { VersionInfo } from '../version.js';
import { sendJson, sendText } from '@terminal-mcp/http-guard';

const READY_TIMEOUT_MS = 5_000;

/** `protection`: how /mcp is protected (`oauth`, `token` or `open`), so `terminal-mcp
 * status` can say it. Not a secret: anyone can find it out by calling /mcp. */
export function sendLive(res: ServerResponse, protection?: string): void {
  sendJson(res, 200, protection === undefined ? { ok: true } : { ok: true, protection });
}

/** `detailed` false (a caller without the token, when one is configured, or from the
 * tunnel): a yes/no only, nothing about tmux, stores, pids or paths. */
export async function sendReady(res: ServerResponse, broker: BrokerClient<'gateway'>, log: Logger, detailed = true): Promise<void> {
  const signal = AbortSignal.timeout(READY_TIMEOUT_MS);
  try {
    const readiness = await broker.health.ready.query(undefined, { signal });
    sendJson(res, readiness.ready ? 200 : 503, detailed ? readiness : { ready: readiness.ready });
  } catch (err) {
    const failure: BrokerFailure = signal.aborted
      ? { code: 'TIMEOUT', message: 'the broker did not answer in time', hint: ERROR_SPECS.TIMEOUT.hint }
      : describeToolFailure(err).failure;
    if (!detailed) {
      if (failure.code === 'INTERNAL') log.error({ event: 'health.ready_failed', correlation_id: failure.correlationId, err }, 'readiness check failed');
      sendJson(res, 503, { ready: false });
      return;
    }
    const body: Record<string, unknown> = { ready: false, error_code: failure.code, message: failure.message, hint: failure.hint };
    if (failure.code === 'INTERNAL') {
      log.error({ event: 'health.ready_failed', correlation_id: failure.correlationId, err }, 'readiness check failed');
      body.message = 'internal error';
      body.correlation_id = failure.correlationId;
    }
    sendJson(res, 503, body);
  }
}

export function sendMetrics(res: ServerResponse, metrics: ToolMetrics): void {
  sendText(res, 200, metrics.render(), 'text/plain; version=0.0.4; charset=utf-8');
}

/** Without details: the name and version only, not the commit it was built from. */
export function sendVersion(res: ServerResponse, info: VersionInfo, detailed = true): void {
  sendJson(res, 200, detailed ? info : { name: info.name, version: info.version });
}
