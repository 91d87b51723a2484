/** Pane text as callers see it: control sequences stripped (unless raw is asked for),
 * trailing screen padding removed, secrets redacted. Redaction always runs, on text
 * captured with -J so a secret wrapped at the pane width is seen whole. */
import { redactSecrets } from '../policy/redact.js';
import { stripTerminalControls } from '../policy/sanitize.js';

export interface CleanText {
  lines: string[];
  redactions: number;
}

export function toLines(captured: string): string[] {
  const lines = captured.split('\n');
  // capture-pane ends with a newline and pads the screen with blank rows.
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === '') lines.pop();
  return lines;
}

export function cleanPaneText(captured: string, stripAnsi: boolean): CleanText {
  const visible = stripAnsi ? stripTerminalControls(captured) : captured;
  const redacted = redactSecrets(visible);
  return { lines: toLines(redacted.text), redactions: redacted.count };
}
