// Guards observer.source_roots in config.yaml: empty by default, absolute paths only, safe unique names, no unknown keys.
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfigText } from './parse.js';

describe('observer.source_roots', () => {
  it('is empty by default, with the default search timeout', () => {
    const c = parseConfigText('', 'x.yaml');
    expect(c.observer.source_roots).toEqual([]);
    expect(c.observer.search_timeout_ms).toBe(10_000);
    expect(parseConfigText('observer: {}', 'x.yaml').observer.search_timeout_ms).toBe(10_000);
  });

  it('accepts named absolute roots', () => {
    const c = parseConfigText('observer:\n  source_roots:\n    - { name: my-app.v2, path: /home/op/src/app }\n', 'x.yaml');
    expect(c.observer.source_roots).toEqual([{ name: 'my-app.v2', path: '/home/op/src/app' }]);
  });

  it.each([
    ['- { name: app, path: src/app }', /must be absolute/],
    ['- { name: app, path: "/" }', /source_roots\.0\.path/],
    ['- { name: App, path: /a }', /a-z 0-9/],
    ['- { name: "../x", path: /a }', /a-z 0-9/],
    ['- { name: app, path: /a }\n    - { name: app, path: /b }', /must be unique/],
    ['- { name: app, path: /a, writable: true }', /unknown key 'observer\.source_roots\.0\.writable'/],
  ])('refuses %s', (roots, message) => {
    expect(() => parseConfigText(`observer:\n  source_roots:\n    ${roots}\n`, 'x.yaml')).toThrow(ConfigError);
    expect(() => parseConfigText(`observer:\n  source_roots:\n    ${roots}\n`, 'x.yaml')).toThrow(message);
  });
});
