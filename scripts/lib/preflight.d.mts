/** Types of preflight.mjs (for the tests' type check). */
export declare function stateDirOf(env: NodeJS.ProcessEnv, home?: string): string;
export declare function preflight(env: NodeJS.ProcessEnv, uid?: number): { problems: string[]; fixed: string[] };
