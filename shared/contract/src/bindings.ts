/** Schemas of bindings: a short stable name an agent gives a session, pinned to that
 * session's identity (tmux server, session id and creation time, pane id and pid). A
 * session recreated under the same name is a different session: the binding says
 * IDENTITY_CHANGED until it is rebound. Field names are snake_case (public MCP API). */
import { z } from 'zod';
import { bindingNameSchema } from './input.js';
import { LIMITS } from './limits.js';
import { paneArg, paneTextSchema, sessionNameSchema, statusResultSchema } from './sessions.js';

/** Postfix rule: bounded. One client (actor) holds at most this many bindings; a new one
 * past it is BINDING_LIMIT_REACHED (remapping or unbinding an existing one is not). */
export const BINDING_LIMITS = { maxPerActor: 100 } as const;

export const BINDING_STATES = ['OK', 'MISSING', 'IDENTITY_CHANGED', 'NODE_UNAVAILABLE'] as const;
export type BindingState = (typeof BINDING_STATES)[number];

export const bindInputShape = {
  binding: bindingNameSchema.describe('name for the binding: 1-64 characters of a-z 0-9 . _ -'),
  session: sessionNameSchema.describe('exact session name; it must exist and be readable'),
  pane: paneArg,
  replace: z.boolean().optional().describe('remap an existing binding that points at another session (default false)'),
  input_enabled: z
    .boolean()
    .optional()
    .describe('allow input through this binding (default false for a new binding; the global input switch and policy still apply)'),
};
export const bindInputSchema = z.object(bindInputShape).strict();
export type BindInput = z.infer<typeof bindInputSchema>;

export const bindingNameInputShape = { binding: bindingNameSchema.describe('binding name') };
export const bindingNameInputSchema = z.object(bindingNameInputShape).strict();
export type BindingNameInput = z.infer<typeof bindingNameInputSchema>;

export const listBindingsInputSchema = z.object({}).strict();

export const bindingSchema = z.object({
  binding: z.string(),
  session: z.string().describe('the bound session name'),
  session_id: z.string().describe('the pinned tmux session id'),
  pane_id: z.string().describe('the pinned pane'),
  input_enabled: z.boolean(),
  state: z.enum(BINDING_STATES).describe('OK, MISSING (no session has that name now; the binding is kept), IDENTITY_CHANGED (recreated or replaced: rebind) or NODE_UNAVAILABLE (the binding is on a node that is down now; it is kept)'),
  created_at: z.string(),
  updated_at: z.string(),
  updated_by: z.string().describe('actor that last created or changed it'),
});
export type Binding = z.infer<typeof bindingSchema>;

export const bindOutputSchema = bindingSchema.extend({
  outcome: z.enum(['CREATED', 'REPLACED', 'UPDATED', 'UNCHANGED']),
});
export type BindOutput = z.infer<typeof bindOutputSchema>;

export const listBindingsOutputSchema = z.object({ bindings: z.array(bindingSchema) });
export type ListBindingsOutput = z.infer<typeof listBindingsOutputSchema>;

export const unbindOutputSchema = z.object({ binding: z.string(), removed: z.literal(true) });
export type UnbindOutput = z.infer<typeof unbindOutputSchema>;

export const tailBoundInputShape = {
  binding: bindingNameSchema.describe('binding name'),
  lines: z.number().int().min(1).max(LIMITS.maxTailLines).optional().describe('how many lines from the bottom (default from config)'),
  strip_ansi: z.boolean().optional().describe('strip ANSI and other control sequences (default true)'),
};
export const tailBoundInputSchema = z.object(tailBoundInputShape).strict();
export type TailBoundInput = z.infer<typeof tailBoundInputSchema>;

export const boundPaneTextSchema = paneTextSchema.extend({ binding: z.string() });
export type BoundPaneText = z.infer<typeof boundPaneTextSchema>;

export const boundStatusSchema = statusResultSchema.extend({ binding: z.string() });
export type BoundStatus = z.infer<typeof boundStatusSchema>;
