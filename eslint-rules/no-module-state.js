// No mutable state at module level in the services (issue 26 item 4; docs/architecture.md
// section 3, "Owners"). Long-lived state belongs to an owner that a composition root
// builds and closes (createBroker in start-broker.ts for the broker): a module-level
// variable is shared by every broker in the process, outlives stop(), and is invisible
// where the broker's parts are listed. Reported: a module-level `let`/`var`, and a
// module-level `const` holding a new Map, Set, WeakMap, WeakSet, WeakRef or Array unless
// its declared type is read-only (ReadonlyMap, ReadonlySet, ReadonlyArray, readonly T[]).
// A deliberate exception says why in its disable comment:
//   // eslint-disable-next-line terminal-mcp/no-module-state -- <why it is not state>
// test/src/module-state-rule.test.ts proves the rule fires on samples and counts the
// exceptions.

const CONTAINERS = new Set(['Map', 'Set', 'WeakMap', 'WeakSet', 'WeakRef', 'Array']);
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

/** @type {import('eslint').Rule.RuleModule} */
export const noModuleState = {
  meta: {
    type: 'problem',
    docs: { description: 'forbid mutable module-level state in services: give it an owner built by the composition root' },
    messages: {
      binding: 'Module-level `{{kind}} {{name}}` is mutable state shared by every broker in the process: give it an owner built in createBroker (start-broker.ts) and pass it in.',
      container: 'Module-level `{{name}}` holds a mutable {{container}}: give it an owner built in createBroker (start-broker.ts), or declare it read-only (Readonly{{container}}) if it is a constant table.',
    },
    schema: [],
  },
  create(context) {
    const check = (decl) => {
      for (const d of decl.declarations) {
        const name = d.id.type === 'Identifier' ? d.id.name : '(pattern)';
        if (decl.kind !== 'const') context.report({ node: d, messageId: 'binding', data: { kind: decl.kind, name } });
        else if (mutableContainer(d.init) && !readOnlyType(d.id)) context.report({ node: d, messageId: 'container', data: { name, container: d.init.callee.name } });
      }
    };
    return {
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
