// Guards issue 46's over-redaction budget: of 45 lines of ordinary output (digests, UUIDs, images, paths, public keys, a certificate, npm/kubectl/docker output), at most 1 comes out changed, redacted as one pane's text.
import { describe, expect, it } from 'vitest';
import { ORDINARY_LINES } from './ordinary-output.js';
import { redactSecrets } from './redact.js';

describe('ordinary output', () => {
  it('has 45 lines', () => {
    expect(ORDINARY_LINES).toHaveLength(45);
  });

  it('comes out changed in at most 1 of its 45 lines', () => {
    const out = redactSecrets(ORDINARY_LINES.join('\n'), { keepLines: true }).text.split('\n');
    const changed = ORDINARY_LINES.filter((line, i) => out[i] !== line);
    console.log(`over-redaction: ${changed.length} of ${ORDINARY_LINES.length} ordinary lines changed`);
    expect(changed.length, changed.join('\n')).toBeLessThanOrEqual(1);
  });
});
