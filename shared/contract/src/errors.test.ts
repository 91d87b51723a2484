// Guards the closed error set: docs/errors.md, the codes and their HTTP statuses and hints never drift apart.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AppError, ERROR_CODES, ERROR_SPECS, readAppErrorData } from './errors.js';

const doc = readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8');
const rows = [...doc.matchAll(/^\| `([A-Z_]+)` \| (\d+) \| [^|]+ \| (.+) \|$/gm)].map((m) => ({
  code: m[1]!,
  http: Number(m[2]),
  hint: m[3]!.replace(/\\\|/g, '|'),
}));

describe('error codes', () => {
  it('docs/errors.md lists exactly the codes, statuses and hints in the code', () => {
    expect(rows.map((r) => r.code)).toEqual([...ERROR_CODES]);
    for (const r of rows) {
      const spec = ERROR_SPECS[r.code as keyof typeof ERROR_SPECS];
      expect({ code: r.code, http: r.http, hint: r.hint }).toEqual({ code: r.code, http: spec.http, hint: spec.hint });
    }
  });

  it('reads error data by shape from every place it travels', () => {
    const err = new AppError('PANE_IN_COPY_MODE');
    expect(readAppErrorData(err)?.code).toBe('PANE_IN_COPY_MODE');
    expect(readAppErrorData({ data: { app: { code: 'SESSION_NOT_FOUND', hint: 'h' } } })).toEqual({ code: 'SESSION_NOT_FOUND', hint: 'h' });
    expect(readAppErrorData({ shape: { data: { app: { code: 'INTERNAL', hint: 'x', correlationId: 'c1' } } } })).toEqual({
      code: 'INTERNAL',
      hint: 'x',
      correlationId: 'c1',
    });
    expect(readAppErrorData({ code: 'NOT_A_CODE' })).toBeUndefined();
    expect(readAppErrorData(new Error('plain'))).toBeUndefined();
  });
});
