/** Asks a running broker about itself over its gateway socket (`health.info`,
 * `health.ready`: every role may call them), for the lifecycle commands. Plain HTTP/1.1
 * over the Unix socket: the broker package cannot use the client package (that one
 * imports the broker's types). */
// eslint-disable-next-line terminal-mcp/no-network-egress -- HTTP over the broker's own gateway.sock (a Unix socket path, never a host or port)
import { request } from 'node:http';
import { brokerInfoSchema, nodeHealthOutputSchema, readinessSchema, socketPathFor, type BrokerInfo, type Readiness } from '@terminal-mcp/contract';
import type { z } from 'zod';

function getJson(socketPath: string, path: string, timeoutMs: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, path, method: 'GET', headers: { host: 'broker.local' }, timeout: timeoutMs }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        if (body.length < 256 * 1024) body += c;
      });
      res.on('end', () => {
        try {
          resolve(JSON.parse(body));
        } catch (err) {
          reject(err as Error);
        }
      });
    });
    req.on('timeout', () => req.destroy(new Error('the broker did not answer in time')));
    req.on('error', reject);
    req.end();
  });
}

async function query<T extends z.ZodType>(socketDir: string, procedure: string, schema: T, timeoutMs: number): Promise<z.infer<T> | undefined> {
  try {
    const body = (await getJson(socketPathFor(socketDir, 'gateway'), `/${procedure}`, timeoutMs)) as { result?: { data?: unknown } };
    const parsed = schema.safeParse(body?.result?.data);
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** The broker's own report (pid, version, tmux socket), or undefined when none answers. */
export function probeBrokerInfo(socketDir: string, timeoutMs = 3_000): Promise<BrokerInfo | undefined> {
  return query(socketDir, 'health.info', brokerInfoSchema, timeoutMs);
}

export function probeBrokerReadiness(socketDir: string, timeoutMs = 5_000): Promise<Readiness | undefined> {
  return query(socketDir, 'health.ready', readinessSchema, timeoutMs);
}

/** Every node's health (this host's included), each probed through its tmux by the broker. */
export function probeNodeHealth(socketDir: string, timeoutMs = 10_000) {
  return query(socketDir, `nodes.health?input=${encodeURIComponent('{}')}`, nodeHealthOutputSchema, timeoutMs);
}

/** GET an HTTP URL on loopback; the status code, or undefined when nothing answers. */
/** A small JSON answer of a health endpoint (at most 4 KB read), or undefined. */
export function probeJson(url: string, timeoutMs = 3_000): Promise<unknown> {
  return new Promise((resolve) => {
    const req = request(url, { method: 'GET', timeout: timeoutMs }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
        if (body.length > 4096) req.destroy();
      });
      res.on('end', () => {
        try {
          resolve(JSON.parse(body));
        } catch {
          resolve(undefined);
        }
      });
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(undefined));
    req.end();
  });
}

export function probeHttp(url: string, timeoutMs = 3_000): Promise<number | undefined> {
  return new Promise((resolve) => {
    const req = request(url, { method: 'GET', timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(undefined));
    req.end();
  });
}
