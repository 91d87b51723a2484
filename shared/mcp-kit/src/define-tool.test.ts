// Guards: a defined tool keeps its public definition as declared and answers with the structured result plus its rendered text.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineMcpTool, READ_ONLY_ANNOTATIONS } from './define-tool.js';

describe('defineMcpTool', () => {
  const tool = defineMcpTool<'observer', { n: z.ZodNumber }, z.ZodObject<{ doubled: z.ZodNumber }>, typeof READ_ONLY_ANNOTATIONS>({
    name: 'double_it',
    title: 'Double it',
    description: 'Doubles n.',
    inputShape: { n: z.number() },
    outputSchema: z.object({ doubled: z.number() }),
    annotations: READ_ONLY_ANNOTATIONS,
    run: async ({ n }) => ({ doubled: n * 2 }),
    render: (r) => `doubled: ${r.doubled}`,
  });

  it('keeps name, title, schemas and annotations', () => {
    expect(tool).toMatchObject({ name: 'double_it', title: 'Double it', description: 'Doubles n.', annotations: READ_ONLY_ANNOTATIONS });
    expect(Object.keys(tool.inputShape)).toEqual(['n']);
  });

  it('returns the structured result and its text', async () => {
    // This tool never calls the broker, so the context carries none.
    const ctx = { broker: undefined as never, signal: AbortSignal.timeout(1_000) };
    await expect(tool.invoke({ n: 21 }, ctx)).resolves.toEqual({ structured: { doubled: 42 }, text: 'doubled: 42' });
  });
});
