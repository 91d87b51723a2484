export * from './errors.js';
export * from './limits.js';
export * from './sessions.js';
export * from './health.js';
export * from './paths.js';
