// No mutable state at module level in the services (issue 26 item 4; docs/architecture.md
// section 3, "Owners"). Long-lived state belongs to an owner that a composition root
// builds and closes (createBroker in start-broker.ts for the broker): a module-level
// variable is shared by every broker in the process, outlives stop(), and is invisible
// where the broker's parts are listed. Reported: a module-level `let`/`var`, and a
// module-level `const` holding a new Map, Set, WeakMap, WeakSet, WeakRef or Array unless
// its declared type is read-only (ReadonlyMap, ReadonlySet, ReadonlyArray, readonly T[]);
// since issue 47 also a module-level `const` holding a typed array, any other `new X()`
// or the result of a `create*()` call (an owner built at import time is one per process,
// not one per broker), and a write to a property of `globalThis` anywhere (a registry
// every module and every broker in the process shares). Frozen tables and plain values
// (`const X = Object.freeze(...)`, literals, regex literals) and the values in VALUES
// (patterns, codecs, formatters, errors, AsyncLocalStorage scopes) are not state.
// A deliberate exception says why in its disable comment:
//   // eslint-disable-next-line terminal-mcp/no-module-state -- <why it is not state>
// test/src/module-state-rule.test.ts proves the rule fires on samples and counts the
// exceptions.

const CONTAINERS = new Set(['Map', 'Set', 'WeakMap', 'WeakSet', 'WeakRef', 'Array']);
// Values, not state: a pattern, a codec, a formatter, an error to throw, a URL; and
// AsyncLocalStorage, which holds only the value of the async call running now (a scope
// that ends with the call, never shared between calls).
const VALUES = new Set(['RegExp', 'TextDecoder', 'TextEncoder', 'URL', 'Error', 'TypeError', 'RangeError', 'AppError', 'DateTimeFormat', 'NumberFormat', 'Collator', 'Segmenter', 'PluralRules', 'ListFormat', 'RelativeTimeFormat', 'AsyncLocalStorage']);
const TYPED_ARRAYS = new Set(['Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array', 'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array', 'ArrayBuffer', 'SharedArrayBuffer', 'DataView']);
const READONLY_TYPES = new Set(['ReadonlyMap', 'ReadonlySet', 'ReadonlyArray', 'Readonly']);

function readOnlyType(id) {
  const type = id.typeAnnotation?.typeAnnotation;
  if (type === undefined) return false;
  if (type.type === 'TSTypeOperator' && type.operator === 'readonly') return true;
  return type.type === 'TSTypeReference' && type.typeName.type === 'Identifier' && READONLY_TYPES.has(type.typeName.name);
}

function mutableContainer(init) {
  return init?.type === 'NewExpression' && init.callee.type === 'Identifier' && CONTAINERS.has(init.callee.name);
}

/** The callee's name: `X` of `new X()` / `X()`, `b` of `a.b()`. */
function calleeName(callee) {
  if (callee.type === 'Identifier') return callee.name;
  if (callee.type === 'MemberExpression' && !callee.computed && callee.property.type === 'Identifier') return callee.property.name;
  return undefined;
}

/** `new X(...)` (any X but the read-only containers above) or `create*(...)`, unwrapped
 * from `as` / `satisfies` / `!`. */
function builtAtImport(init) {
  let e = init;
  while (e && (e.type === 'TSAsExpression' || e.type === 'TSSatisfiesExpression' || e.type === 'TSNonNullExpression')) e = e.expression;
  if (e?.type === 'NewExpression') {
    const name = calleeName(e.callee) ?? '(expression)';
    if (VALUES.has(name)) return undefined;
    return { name, kind: TYPED_ARRAYS.has(name) ? 'typed array' : 'new' };
  }
  if (e?.type === 'CallExpression') {
    const name = calleeName(e.callee);
    if (name !== undefined && /^create[A-Z]/.test(name)) return { name, kind: 'create' };
  }
  return undefined;
}

/** `globalThis.x = …`, `globalThis[x] = …`, `globalThis.x.y = …` and their `+=`, `++`. */
function writesGlobalThis(target) {
  const bare = (x) => {
    while (x && (x.type === 'TSAsExpression' || x.type === 'TSSatisfiesExpression' || x.type === 'TSNonNullExpression')) x = x.expression;
    return x;
  };
  let e = bare(target);
  while (e?.type === 'MemberExpression') {
    const object = bare(e.object);
    if (object?.type === 'Identifier' && object.name === 'globalThis') return true;
    e = object;
  }
  return false;
}

/** @type {import('eslint').Rule.RuleModule} */
export const noModuleState = {
  meta: {
    type: 'problem',
    docs: { description: 'forbid mutable module-level state in services: give it an owner built by the composition root' },
    messages: {
      binding: 'Module-level `{{kind}} {{name}}` is mutable state shared by every broker in the process: give it an owner built in createBroker (start-broker.ts) and pass it in.',
      container: 'Module-level `{{name}}` holds a mutable {{container}}: give it an owner built in createBroker (start-broker.ts), or declare it read-only (Readonly{{container}}) if it is a constant table.',
      built: 'Module-level `{{name}}` holds what `{{callee}}` builds ({{kind}}) at import time: one per process, not one per broker. Build it in the composition root (createBroker) and pass it in.',
      global: 'A write to `globalThis` is state every module and every broker in the process shares: give it an owner built in the composition root and pass it in.',
    },
    schema: [],
  },
  create(context) {
    const check = (decl) => {
      for (const d of decl.declarations) {
        const name = d.id.type === 'Identifier' ? d.id.name : '(pattern)';
        if (decl.kind !== 'const') context.report({ node: d, messageId: 'binding', data: { kind: decl.kind, name } });
        else if (mutableContainer(d.init) && !readOnlyType(d.id)) context.report({ node: d, messageId: 'container', data: { name, container: d.init.callee.name } });
        else if (!mutableContainer(d.init)) {
          const built = builtAtImport(d.init);
          if (built !== undefined) context.report({ node: d, messageId: 'built', data: { name, callee: built.name, kind: built.kind } });
        }
      }
    };
    const globalWrite = (node, target) => {
      if (writesGlobalThis(target)) context.report({ node, messageId: 'global' });
    };
    return {
      AssignmentExpression: (node) => globalWrite(node, node.left),
      // `const g = globalThis as {...}` is taken to write through `g` (a registry).
      VariableDeclarator(node) {
        let e = node.init;
        while (e && (e.type === 'TSAsExpression' || e.type === 'TSSatisfiesExpression' || e.type === 'TSNonNullExpression')) e = e.expression;
        if (e?.type === 'Identifier' && e.name === 'globalThis') context.report({ node, messageId: 'global' });
      },
      UpdateExpression: (node) => globalWrite(node, node.argument),
      Program(program) {
        for (const statement of program.body) {
          if (statement.type === 'VariableDeclaration') check(statement);
          else if ((statement.type === 'ExportNamedDeclaration' || statement.type === 'ExportDefaultDeclaration') && statement.declaration?.type === 'VariableDeclaration') check(statement.declaration);
        }
      },
    };
  },
};

import { noNetworkEgress } from './no-network-egress.js';

export const terminalMcpPlugin = { rules: { 'no-module-state': noModuleState, 'no-network-egress': noNetworkEgress } };
