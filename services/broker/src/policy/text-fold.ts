/**
 * Text folded for matching words against it, the same way everywhere a word decides
 * something (sensitive session names, the supervisor's stop patterns and the prompts it
 * may auto-continue): NFKC (fullwidth and mathematical letters become plain ones),
 * default-ignorable code points dropped (zero-width space, joiners, soft hyphen, variation
 * selectors), lower case, and the Cyrillic and Greek letters that render like Latin ones
 * mapped to them, so `rооt` (Cyrillic о) or `Are yоu sure` cannot pass for something
 * else. Not the whole Unicode confusables table: lookalikes from other scripts, or digits
 * for letters (`r00t`), are not caught. Pure.
 */

const LATIN_LOOKALIKES: ReadonlyMap<string, string> = new Map([
  ['а', 'a'], ['в', 'b'], ['с', 'c'], ['ԁ', 'd'], ['е', 'e'], ['ё', 'e'], ['һ', 'h'], ['н', 'h'], ['і', 'i'], ['ї', 'i'], ['ј', 'j'],
  ['к', 'k'], ['м', 'm'], ['п', 'n'], ['о', 'o'], ['р', 'p'], ['ԛ', 'q'], ['ѕ', 's'], ['т', 't'], ['ц', 'u'], ['ѵ', 'v'],
  ['ԝ', 'w'], ['х', 'x'], ['у', 'y'],
  ['α', 'a'], ['β', 'b'], ['ε', 'e'], ['η', 'n'], ['ι', 'i'], ['κ', 'k'], ['ν', 'v'], ['ο', 'o'], ['ρ', 'p'], ['τ', 't'], ['υ', 'u'],
  ['χ', 'x'], ['ω', 'w'],
]);

/** NFKC, no default-ignorables, lower case, lookalikes mapped to Latin. */
export function foldLookalikes(text: string): string {
  const visible = text.normalize('NFKC').replace(/\p{Default_Ignorable_Code_Point}/gu, '').toLowerCase();
  let folded = '';
  for (const ch of visible) folded += LATIN_LOOKALIKES.get(ch) ?? ch;
  return folded;
}

/** foldLookalikes, with every run of white space (any Unicode space, tabs, newlines)
 * folded to one space: `Are you  sure` reads as `are you sure`. */
export function foldForMatching(text: string): string {
  return foldLookalikes(text).replace(/[\s\p{Zs}]+/gu, ' ');
}
