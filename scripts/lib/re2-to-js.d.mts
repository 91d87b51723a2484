/** Types of re2-to-js.mjs (for the tests' type check). */
export declare function re2ToJs(pattern: string): { source: string; flags: string };
