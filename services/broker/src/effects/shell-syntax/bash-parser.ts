/**
 * The bash grammar for review mode (policy/shell-review.ts): web-tree-sitter with the
 * tree-sitter-bash package's bundled WebAssembly grammar (no native build). Loaded once,
 * on first use, by the loader its owner (the input services) keeps; after that a parse is
 * pure computation, and its tree is copied into plain objects and freed at once (a
 * tree-sitter tree lives in WebAssembly memory, not the JavaScript heap).
 *
 * The grammar file is found from the package itself (`tree-sitter-bash/package.json`
 * resolved from this module, then its `tree-sitter-bash.wasm`), so it works from the
 * source tree, the built `dist/` and an installed package alike.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { ShellParse, ShellSyntaxNode } from '../../policy/shell-review.js';

/** Nodes copied from one tree at most: past it the text is judged too complex. */
export const MAX_SYNTAX_NODES = 20_000;

/** The location of tree-sitter-bash's WebAssembly grammar. */
export function bashGrammarPath(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('tree-sitter-bash/package.json')), 'tree-sitter-bash.wasm');
}

interface TsNode {
  readonly type: string;
  readonly text: string;
  readonly children: readonly (TsNode | null)[];
}

async function loadBashParser(): Promise<ShellParse> {
  const { Parser, Language } = await import('web-tree-sitter');
  await Parser.init();
  const language = await Language.load(readFileSync(bashGrammarPath()));
  const parser = new Parser();
  parser.setLanguage(language);
  return (text) => {
    const tree = parser.parse(text);
    if (tree === null) return { root: { type: 'ERROR', text, children: [] }, hasError: true, truncated: false };
    try {
      let count = 0;
      const copy = (n: TsNode): ShellSyntaxNode => {
        count += 1;
        const children = count > MAX_SYNTAX_NODES ? [] : n.children.filter((c): c is TsNode => c !== null).map(copy);
        return { type: n.type, text: n.text, children };
      };
      const root = copy(tree.rootNode as unknown as TsNode);
      return { root, hasError: tree.rootNode.hasError, truncated: count > MAX_SYNTAX_NODES };
    } finally {
      tree.delete();
    }
  };
}

/** A loader that loads the grammar on its first call and answers the same parser after
 * (a failed load is tried again on the next call). */
export function createBashParserLoader(): () => Promise<ShellParse> {
  let loading: Promise<ShellParse> | undefined;
  return () => {
    loading ??= loadBashParser().catch((err: unknown) => {
      loading = undefined;
      throw err;
    });
    return loading;
  };
}
