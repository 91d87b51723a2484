/**
 * Attention stop patterns: text that must never be answered by automation. Checked at
 * claim time against the output that triggered the event, and at decision and send time
 * against the proposed prompt and the pane's output re-read then. A match blocks the
 * action and the watch's policy. Deliberately broad: a false stop costs a human one look,
 * a missed one could type a password or confirm a destructive command.
 *
 * Matched on the text folded like sensitive names (policy/text-fold.ts: NFKC, invisible
 * characters dropped, lower case, Cyrillic/Greek lookalikes mapped to Latin, white space
 * runs folded to one space), so `Are you  sure`, `Are yоu sure` (Cyrillic о) or a
 * fullwidth `ｓｕｄｏ` match like the plain words; and destructive commands are matched by
 * their parts (`rm -r -f`, `rm --recursive`, `rm -fR`), not one spelling. Pure.
 */
import { foldForMatching } from '../policy/text-fold.js';

interface StopPattern {
  readonly kind: 'credential' | 'confirmation' | 'destructive';
  readonly pattern: RegExp;
}

/** Patterns see folded text: lower case, single spaces. */
const STOP_PATTERNS: readonly StopPattern[] = [
  {
    kind: 'credential',
    pattern:
      /\b(?:password|passphrase|passcode|passwd|pin code|api ?[_-]?key|secret|(?:api|access|auth|bearer|refresh|session|github|npm|personal access) ?[_-]?token|token ?[:=]? ?$|credential|private key|one[- ]time (?:code|password)|otp|2fa|mfa|verification code|authenticat(?:e|ion) code)|\[redacted:[a-z0-9_]+\]/m,
  },
  {
    kind: 'confirmation',
    pattern:
      /\b(?:are you (?:really |absolutely )?sure|irreversible|cannot be undone|can ?not be reverted|can'?t be undone|permanently (?:delete|remove|erase|destroy)|type ['"]?(?:yes|delete|confirm)['"]? to (?:confirm|continue|proceed)|only 'yes' will be accepted|this will (?:delete|remove|erase|destroy|overwrite|wipe)|overwrite (?:existing|the|all)|data (?:will be )?lost|destroy)\b/,
  },
  {
    kind: 'destructive',
    pattern: new RegExp(
      [
        // rm with a recursive flag anywhere among its arguments: -r, -R (folded), -rf, -fr, -r -f, --recursive
        String.raw`\brm\b[^\n;|&]*\s-(?:-recursive\b|[a-z]*r)`,
        String.raw`\brmdir\b`,
        String.raw`\bgit push\b[^\n;|&]*\s(?:-[a-z]*f\b|--force)`,
        String.raw`\bforce[- ]push`,
        String.raw`\bgit (?:reset\b[^\n;|&]*--hard|clean\b[^\n;|&]*\s-[a-z]*f|checkout\b[^\n;|&]*\s--? ?\.|branch\b[^\n;|&]*\s-d)`,
        String.raw`\bdrop (?:table|database|schema|index|user)\b`,
        String.raw`\btruncate\b`,
        String.raw`\bdelete from\b`,
        String.raw`\bsudo\b`,
        String.raw`\bdoas\b`,
        String.raw`\bmkfs\b`,
        String.raw`\bwipefs\b`,
        String.raw`\bshred\b`,
        String.raw`\bdd\b[^\n;|&]*\bof=`,
        String.raw`\bchmod\b[^\n;|&]*\s-[a-z]*r`,
        String.raw`\bchown\b[^\n;|&]*\s-[a-z]*r`,
        String.raw`\bkill(?:all)?\b[^\n;|&]*\s-(?:9|kill)\b`,
        String.raw`\b(?:reboot|shutdown|poweroff|halt)\b`,
        String.raw`>\s*/dev/(?:sd|nvme|hd|mmcblk)`,
        String.raw`\bkubectl (?:delete|drain)\b`,
        String.raw`\bterraform (?:destroy|apply)\b`,
        String.raw`\b(?:docker|podman) (?:system )?(?:prune|rm|rmi)\b`,
        String.raw`:\(\) ?\{`,
      ].join('|'),
    ),
  },
];

export interface StopMatch {
  readonly kind: StopPattern['kind'];
  readonly where: string;
}

/** The first stop pattern `text` matches once folded, or null. `where` names the text in
 * the reason. */
export function stopPatternIn(text: string, where: string): StopMatch | null {
  const folded = foldForMatching(text);
  for (const p of STOP_PATTERNS) if (p.pattern.test(folded)) return { kind: p.kind, where };
  return null;
}

export function describeStop(m: StopMatch): string {
  return `attention stop pattern (${m.kind}) in the ${m.where}: a human must handle this`;
}
