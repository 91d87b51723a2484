/**
 * Attention stop patterns: text that must never be answered by automation. Checked at
 * claim time against the output that triggered the event, and at decision time against
 * the proposed prompt and the pane's output re-read then. A match blocks the action and
 * the watch's policy. Deliberately broad: a false stop costs a human one look, a missed
 * one could type a password or confirm a destructive command. Pure.
 */

interface StopPattern {
  readonly kind: 'credential' | 'confirmation' | 'destructive';
  readonly pattern: RegExp;
}

const STOP_PATTERNS: readonly StopPattern[] = [
  { kind: 'credential', pattern: /\b(?:password|passphrase|passcode|passwd|pin code|api[\s_-]?key|secret|(?:api|access|auth|bearer|refresh|session|github|npm|personal access)[\s_-]*token|token\s*[:=]?\s*$|credential|private key|one[- ]time code|otp|2fa|verification code)|\[REDACTED:[a-z0-9_]+\]/i },
  { kind: 'confirmation', pattern: /\b(?:are you sure|irreversible|cannot be undone|can't be undone|permanently (?:delete|remove|erase)|type ['"]?yes['"]? to confirm|only 'yes' will be accepted)\b/i },
  { kind: 'destructive', pattern: /\brm\s+-(?:[a-z]*r[a-z]*f|[a-z]*f[a-z]*r)[a-z]*\b|\bgit\s+push\s+(?:.*\s)?(?:-f|--force(?:-with-lease)?)\b|\bforce[- ]push|\bdrop\s+(?:table|database|schema)\b|\btruncate\s+table\b|\bdelete\s+from\b|\bsudo\b|\bmkfs\b|\bdd\s+if=|\bgit\s+reset\s+--hard\b|\bgit\s+clean\s+-[a-z]*f|\bchmod\s+-R\s+777\b|:\(\)\s*\{/i },
];

export interface StopMatch {
  readonly kind: StopPattern['kind'];
  readonly where: string;
}

/** The first stop pattern `text` matches, or null. `where` names the text in the reason. */
export function stopPatternIn(text: string, where: string): StopMatch | null {
  for (const p of STOP_PATTERNS) if (p.pattern.test(text)) return { kind: p.kind, where };
  return null;
}

export function describeStop(m: StopMatch): string {
  return `attention stop pattern (${m.kind}) in the ${m.where}: a human must handle this`;
}
