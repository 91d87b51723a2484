import { describe, expect, it } from 'vitest';
import { continuationPromptAfterEnter, inputRowsAfterTyping } from './submission.js';

describe('inputRowsAfterTyping', () => {
  it('sees a one-letter answer whose prompt already shows that letter', () => {
    expect(inputRowsAfterTyping(['', 'Continue? [y/N] '], ['', 'Continue? [y/N] y'], 'y')).toBe(1);
  });
});

describe('continuationPromptAfterEnter', () => {
  it('recognises python, bash and zsh continuation prompts right below the typed text', () => {
    expect(continuationPromptAfterEnter(['>>> '], ['>>> for i in x:', '...     print(i)', '... '], 'print(i)')).toBe('...');
    expect(continuationPromptAfterEnter(['$ '], ['$ cat <<EOF', '> '], 'cat <<EOF')).toBe('>');
    expect(continuationPromptAfterEnter(['% '], ['% echo "a', 'dquote> '], 'echo "a')).toBe('dquote>');
  });

  it('does not mistake a primary prompt or output for a continuation', () => {
    // node's primary prompt is "> ": back at it means the statement finished.
    expect(continuationPromptAfterEnter(['> '], ['> let x = 1', '> '], 'let x = 1')).toBeNull();
    // the prompt follows output, not the typed line
    expect(continuationPromptAfterEnter(['$ '], ['$ cat <<EOF', 'done', '> '], 'unrelated')).toBeNull();
    expect(continuationPromptAfterEnter(['$ '], ['$ ls', 'a.txt'], 'ls')).toBeNull();
  });
});
