/** The shape of a generated rule set (scripts/update-secret-rules.mjs): plain data. */

/** A JavaScript pattern translated from the upstream one. */
export interface GeneratedPattern {
  readonly source: string;
  /** `i` or empty; the engine adds `g` and `d`. */
  readonly flags: string;
}

export interface GeneratedAllowlist {
  /** What the regexes test: the secret (default), the whole match, or its line. */
  readonly target: string;
  readonly regexes: readonly GeneratedPattern[];
  /** Lower-case words: a secret containing one is not a secret. */
  readonly stopwords: readonly string[];
}

export interface GeneratedRule extends GeneratedPattern {
  readonly id: string;
  /** Lower-case; the rule runs only on text containing one of them (all, when empty). */
  readonly keywords: readonly string[];
  /** Minimum Shannon entropy (bits per character) of the secret. */
  readonly entropy?: number;
  /** The capture group holding the secret; default the first non-empty one. */
  readonly secretGroup?: number;
  readonly allowlists: readonly GeneratedAllowlist[];
}

export interface GeneratedRuleSet {
  readonly source: string;
  readonly version: string;
  readonly commit: string;
  /** Apply to every rule's findings. */
  readonly allowlists: readonly GeneratedAllowlist[];
  readonly rules: readonly GeneratedRule[];
}
