/**
 * List answer sizes (issue 31): every list-shaped tool of the gateway and the observer as a
 * real MCP SDK client receives it (text plus structuredContent, when there is any), on the
 * fixtures of test/src/helpers/list-answers.ts (the same the budget test measures), at each
 * number of sessions asked. With BENCH_BEFORE naming the root of another checkout, built,
 * that build's stdio gateway answers the same calls from the same broker in the same run.
 */
export { measureListAnswers as benchListAnswers, type AnswerBytes, type ListAnswerRow } from '@terminal-mcp/test';
