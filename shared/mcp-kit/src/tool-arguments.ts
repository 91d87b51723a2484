/**
 * The arguments of a tool call, checked at the MCP edge before anything reaches the
 * broker: argument names of the original Terminal MCP renamed to ours (documented
 * aliases), unknown names refused with INVALID_ARGUMENT naming the key, a suggestion and
 * the valid names (never silently dropped: `press_enter: true` ignored would mean an
 * agent believes Enter was pressed), then the contract schema with readable messages.
 * The broker validates again with the same schemas (and answers without detail).
 */
import type { BrokerFailure } from '@terminal-mcp/broker-client';
import { closeMatches, ERROR_SPECS } from '@terminal-mcp/contract';
import type { z } from 'zod';

/** What a tool declares about its argument names (see ToolSpec). */
export interface ArgumentNames {
  readonly tool: string;
  /** Every argument the tool takes, in schema order. */
  readonly valid: readonly string[];
  /** The original project's name → ours; accepted as if the caller had used ours. */
  readonly aliases: Readonly<Record<string, string>>;
  /** Original arguments with no counterpart here → why, and what to do instead. */
  readonly retired: Readonly<Record<string, string>>;
}

/**
 * Names models commonly reach for, by the argument they mean. Only suggestions: a tool
 * accepts an alias only where it declares one (the original project's names).
 */
const COMMON_MISNAMES: Readonly<Record<string, readonly string[]>> = {
  session: ['session_name', 'name', 'target', 'session_id', 'sessionname', 'tmux_session'],
  sessions: ['targets', 'session_names', 'names'],
  lines: ['max_lines', 'num_lines', 'line_count', 'tail_lines', 'n', 'count', 'limit'],
  enter: ['press_enter', 'submit', 'newline', 'send_enter', 'enter_key'],
  keys: ['key', 'keystrokes', 'key_names'],
  text: ['input', 'command', 'prompt', 'message', 'data'],
  states: ['desired_states', 'state', 'wait_for'],
  timeout_s: ['timeout', 'timeout_seconds', 'timeout_sec', 'seconds', 'wait_seconds'],
  confirm_sensitive: ['confirm', 'force', 'confirmed'],
  binding: ['binding_name', 'bound', 'alias'],
  project: ['project_name', 'repo', 'repository'],
};

/** The argument `key` most likely meant: a known misname exactly, else the closest
 * spelling among the valid names, the aliases and the known misnames (each standing for
 * the argument it means, so `press_entr` suggests `enter`). */
function suggestionFor(key: string, names: ArgumentNames): string | undefined {
  const meaning = new Map<string, string>(names.valid.map((v) => [v, v]));
  for (const [alias, canonical] of Object.entries(names.aliases)) meaning.set(alias, canonical);
  for (const [target, wrong] of Object.entries(COMMON_MISNAMES)) {
    if (names.valid.includes(target)) for (const w of wrong) if (!meaning.has(w)) meaning.set(w, target);
  }
  const exact = meaning.get(key.toLowerCase());
  if (exact !== undefined) return exact;
  const closest = closeMatches(key, meaning.keys(), { max: 1 })[0];
  return closest === undefined ? undefined : meaning.get(closest);
}

const quoted = (s: string) => JSON.stringify(s.length > 64 ? `${s.slice(0, 61)}...` : s);

function invalid(message: string, hint: string): BrokerFailure {
  return { code: 'INVALID_ARGUMENT', message, hint };
}

function validList(names: ArgumentNames): string {
  return names.valid.length === 0 ? `${names.tool} takes no arguments` : `${names.tool} takes: ${names.valid.join(', ')}`;
}

/** Renames aliases and refuses unknown or retired names. */
export function normalizeArgumentNames(args: Record<string, unknown>, names: ArgumentNames): { ok: true; args: Record<string, unknown> } | { ok: false; failure: BrokerFailure } {
  const out: Record<string, unknown> = {};
  const unknown: string[] = [];
  for (const [key, value] of Object.entries(args)) {
    const canonical = names.aliases[key];
    if (canonical !== undefined) {
      if (Object.hasOwn(args, canonical)) {
        return { ok: false, failure: invalid(`both ${quoted(key)} and ${quoted(canonical)} were given; they are the same argument`, `Call ${names.tool} again with only ${canonical}.`) };
      }
      out[canonical] = value;
    } else if (names.valid.includes(key)) {
      out[key] = value;
    } else {
      unknown.push(key);
    }
  }
  if (unknown.length === 0) return { ok: true, args: out };
  const key = unknown[0]!;
  const retired = names.retired[key];
  if (retired !== undefined) {
    return { ok: false, failure: invalid(`argument ${quoted(key)} is not supported here: ${retired}`, `Call ${names.tool} again without ${key}; ${validList(names)}.`) };
  }
  const suggestion = suggestionFor(key, names);
  const more = unknown.length > 1 ? ` (also unknown: ${unknown.slice(1, 4).map(quoted).join(', ')}${unknown.length > 4 ? ', ...' : ''})` : '';
  return {
    ok: false,
    failure: invalid(
      `unknown argument ${quoted(key)}${suggestion ? `; did you mean ${quoted(suggestion)}?` : ''}${more}`,
      `Call ${names.tool} again with only its arguments; ${validList(names)}.`,
    ),
  };
}

/** One line per problem, at most three: `lines: must be at least 1`. */
export function describeSchemaIssues(error: z.ZodError): string {
  const lines = error.issues.slice(0, 3).map((issue) => {
    const path = issue.path.map(String).join('.');
    const missing = issue.code === 'invalid_type' && /received undefined/.test(issue.message);
    const what = missing ? 'is required' : issue.message.replace(/^Invalid input: /, '');
    return path ? `${path}: ${what}` : what;
  });
  return lines.join('; ') + (error.issues.length > 3 ? '; ...' : '');
}

/** Checks names, then values against the tool's schema; the parsed arguments on success. */
export function checkToolArguments(
  raw: unknown,
  names: ArgumentNames,
  schema: z.ZodType,
): { ok: true; args: Record<string, unknown> } | { ok: false; failure: BrokerFailure } {
  if (raw !== undefined && (typeof raw !== 'object' || raw === null || Array.isArray(raw))) {
    return { ok: false, failure: invalid('arguments must be an object', ERROR_SPECS.INVALID_ARGUMENT.hint) };
  }
  const named = normalizeArgumentNames((raw ?? {}) as Record<string, unknown>, names);
  if (!named.ok) return named;
  const parsed = schema.safeParse(named.args);
  if (!parsed.success) {
    return { ok: false, failure: invalid(`invalid arguments for ${names.tool}: ${describeSchemaIssues(parsed.error)}`, `Fix that argument and call ${names.tool} again (${validList(names)}).`) };
  }
  return { ok: true, args: parsed.data as Record<string, unknown> };
}
