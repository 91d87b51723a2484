// Lint zones from the broker's capability table (services/broker/src/capabilities.ts,
// copied as data into capability-table.generated.js by `npm run gen:architecture`): each
// folder of services/broker/src may import only the effects/ modules of the effects it
// declares, and only the stores it declares. Core `no-restricted-imports` (type imports
// count too); the layer rules use the typescript-eslint rule of the same name.
import { CAPABILITY_TABLE } from './capability-table.generated.js';

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** An effects/ module entry as a regex body: a folder (`git/`) matches all inside it. */
const moduleRegex = (m) => (m.endsWith('/') ? `${escape(m)}.+` : escape(m));

function zoneOf(folder, { may, stores }) {
  const patterns = Object.entries(CAPABILITY_TABLE.effects)
    .filter(([effect]) => !may.includes(effect))
    .map(([effect, modules]) => ({
      regex: `^(\\.\\./)+effects/(${modules.map(moduleRegex).join('|')})(\\.js)?$`,
      message: `${folder}/ does not declare the effect "${effect}" (services/broker/src/capabilities.ts).`,
    }));
  const otherStores = CAPABILITY_TABLE.stores.filter((s) => !stores.includes(s));
  if (otherStores.length > 0) {
    patterns.push({
      regex: `^(\\.\\./)+effects/store/(${otherStores.join('|')})-store(\\.js)?$`,
      message: `${folder}/ declares only the stores [${stores.join(', ')}] (services/broker/src/capabilities.ts).`,
    });
  }
  return {
    files: [`services/broker/src/${folder}/**/*.ts`],
    ignores: ['services/broker/src/**/*.test.ts', 'services/broker/src/**/*.testkit.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns }] },
  };
}

export const capabilityZones = Object.entries(CAPABILITY_TABLE.capabilities).map(([folder, c]) => zoneOf(folder, c));
