// Guards: a defined tool keeps its public definition as declared and answers with its rendered text, plus the structured result only where a client reads it (a published output schema or an MCP Apps view).
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineMcpTool, READ_ONLY_ANNOTATIONS, returnsStructured, type ToolSpec } from './define-tool.js';

describe('defineMcpTool', () => {
  const spec: ToolSpec<'observer', { n: z.ZodNumber }, z.ZodObject<{ doubled: z.ZodNumber }>, typeof READ_ONLY_ANNOTATIONS> = {
    name: 'double_it',
    title: 'Double it',
    description: 'Doubles n.',
    inputShape: { n: z.number() },
    outputSchema: z.object({ doubled: z.number() }),
    annotations: READ_ONLY_ANNOTATIONS,
    run: async ({ n }) => ({ doubled: n * 2 }),
    render: (r) => `doubled: ${r.doubled}`,
  };
  const tool = defineMcpTool(spec);

  it('keeps name, title, schemas and annotations', () => {
    expect(tool).toMatchObject({ name: 'double_it', title: 'Double it', description: 'Doubles n.', annotations: READ_ONLY_ANNOTATIONS });
    expect(Object.keys(tool.inputShape)).toEqual(['n']);
  });

  // These tools never call the broker, so the context carries none.
  const ctx = () => ({ broker: undefined as never, signal: AbortSignal.timeout(1_000) });

  it('answers with text only when no client reads the fields', async () => {
    expect(tool.structured).toBe(false);
    await expect(tool.invoke({ n: 21 }, ctx())).resolves.toEqual({ result: { doubled: 42 }, text: 'doubled: 42' });
  });

  it('returns the structured result too for a published output schema or an MCP Apps view', async () => {
    const published = defineMcpTool({ ...spec, publishOutputSchema: true });
    const viewed = defineMcpTool({ ...spec, meta: { ui: { resourceUri: 'ui://x/view.html' } } });
    for (const t of [published, viewed]) {
      expect(t.structured).toBe(true);
      await expect(t.invoke({ n: 21 }, ctx())).resolves.toEqual({ result: { doubled: 42 }, structured: { doubled: 42 }, text: 'doubled: 42' });
    }
    expect(returnsStructured({ meta: { other: 1 } })).toBe(false);
  });
});
