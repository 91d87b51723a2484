/**
 * The broker's call link: queries and mutations as JSON messages over one WebSocket per
 * client on the role's own Unix socket (request path BROKER_CALL_PATH), instead of one
 * HTTP request each. The procedures, routers and error shapes are tRPC's; only the framing
 * differs. Every message carries its own headers (the same BROKER_HEADERS an HTTP request
 * would), because one connection serves calls for many actors and OAuth credentials.
 * Subscriptions stay on tRPC's own WebSocket protocol (path `/`).
 */
import { z } from 'zod';
import { BROKER_HEADERS } from './paths.js';

export const BROKER_CALL_PATH = '/calls';

/** Longest header value accepted (an OAuth access token is far shorter). */
const MAX_HEADER_CHARS = 4096;

export const brokerCallSchema = z
  .object({
    id: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
    type: z.enum(['query', 'mutation']),
    path: z.string().min(1).max(200),
    input: z.unknown().optional(),
    headers: z
      .object({
        [BROKER_HEADERS.actor]: z.string().max(MAX_HEADER_CHARS).optional(),
        [BROKER_HEADERS.operatorSession]: z.string().max(MAX_HEADER_CHARS).optional(),
        [BROKER_HEADERS.credential]: z.string().max(MAX_HEADER_CHARS).optional(),
        [BROKER_HEADERS.principal]: z.string().max(MAX_HEADER_CHARS).optional(),
      })
      .strict(),
  })
  .strict();
export type BrokerCall = z.infer<typeof brokerCallSchema>;

/** The caller gave up on call `cancel` (its signal aborted): the broker aborts the
 * procedure's signal, as it does when an HTTP client closes its request. */
export const brokerCancelSchema = z.object({ cancel: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER) }).strict();

/** Every message a client may send on the call link. */
export const brokerLinkMessageSchema = z.union([brokerCallSchema, brokerCancelSchema]);

/** The broker's answer to call `id`: tRPC's result data, or tRPC's error shape (with our
 * `data.app`, see shared/contract/src/errors.ts `readAppErrorData`). `id` is null when the
 * message could not be read at all. */
export type BrokerCallReply = { id: number; result: { data: unknown } } | { id: number | null; error: unknown };
