/**
 * The operator's `gateway.toolsets` (config.yaml), as the broker serves it
 * (catalogue.toolsets): the gateway runs as its own user and cannot read the config file.
 * Asked once before the first catalogue is built, then kept; an answer older than
 * `maxAgeMs` is refreshed in the background (a broker restarted with another config is
 * picked up without delaying any request). Until the broker has answered once, and while
 * it cannot be reached, the defaults apply: a client then still needs the broker for every
 * tool call, and the catalogue follows the config from the first answer on.
 */
import type { BrokerClient } from '@terminal-mcp/broker-client';
import { DEFAULT_GATEWAY_TOOLSETS_CONFIG, gatewayToolsetsConfigSchema, type GatewayToolsetsConfig } from '@terminal-mcp/contract';

export interface ToolsetConfigSource {
  /** The config to build a catalogue from now: waits for the broker's first answer (at
   * most `firstAnswerMs`), afterwards answers at once. */
  current(): Promise<GatewayToolsetsConfig>;
}

export interface ToolsetConfigOptions {
  maxAgeMs?: number;
  firstAnswerMs?: number;
  now?: () => number;
}

export function brokerToolsetConfig(broker: BrokerClient<'gateway'>, options: ToolsetConfigOptions = {}): ToolsetConfigSource {
  const maxAgeMs = options.maxAgeMs ?? 30_000;
  const firstAnswerMs = options.firstAnswerMs ?? 3_000;
  const now = options.now ?? Date.now;
  let known: { config: GatewayToolsetsConfig; at: number } | undefined;
  let asking: Promise<void> | undefined;
  let tried = false;

  const ask = (): Promise<void> => {
    tried = true;
    return (asking ??= broker.catalogue.toolsets.query(undefined, { signal: AbortSignal.timeout(firstAnswerMs) })
      .then((answer) => {
        // Validated again at this boundary: the answer decides what is listed to whom.
        const parsed = gatewayToolsetsConfigSchema.safeParse(answer);
        if (parsed.success) known = { config: parsed.data, at: now() };
      })
      .catch(() => undefined)
      .finally(() => {
        asking = undefined;
      }));
  };

  return {
    async current() {
      // Waiting for an unreachable broker once is enough: until it answers, every request
      // asks again in the background (one question at a time) and gets the defaults.
      if (known === undefined) {
        const firstQuestion = !tried || asking !== undefined;
        const answered = ask();
        if (firstQuestion) await answered;
      } else if (now() - known.at > maxAgeMs) void ask();
      return known?.config ?? DEFAULT_GATEWAY_TOOLSETS_CONFIG;
    },
  };
}
