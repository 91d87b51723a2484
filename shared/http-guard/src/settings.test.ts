// Guards: a port or public-host setting that cannot be read is refused with the caller's own error naming the variable, never defaulted.
import { describe, expect, it } from 'vitest';
import { parsePortSetting, parsePublicHostsSetting } from './settings.js';

class TestConfigError extends Error {}
const refusal = (message: string) => new TestConfigError(message);

describe('parsePortSetting', () => {
  it.each([[undefined], [''], ['  ']])('falls back when unset (%j)', (raw) => {
    expect(parsePortSetting(raw, 'PORT', 8766, refusal)).toBe(8766);
  });
  it.each([['0', 0], ['8080', 8080], ['65535', 65535]])('reads %j', (raw, port) => {
    expect(parsePortSetting(raw, 'PORT', 1, refusal)).toBe(port);
  });
  it.each([['65536'], ['-1'], ['80a'], ['1e3'], ['123456']])('refuses %j with the variable named', (raw) => {
    expect(() => parsePortSetting(raw, 'MY_PORT', 1, refusal)).toThrow(TestConfigError);
    expect(() => parsePortSetting(raw, 'MY_PORT', 1, refusal)).toThrow(/^MY_PORT=.* is not a port number \(0-65535\)$/);
  });
});

describe('parsePublicHostsSetting', () => {
  it('reads nothing when unset', () => {
    expect(parsePublicHostsSetting(undefined, 'HOSTS', refusal)).toEqual([]);
  });
  it('reads a comma-separated list', () => {
    expect(parsePublicHostsSetting('a.example.com, b.example.com', 'HOSTS', refusal)).toHaveLength(2);
  });
  it('refuses entries that are not host names, naming them', () => {
    expect(() => parsePublicHostsSetting('ok.example.com,bad host', 'HOSTS', refusal)).toThrow(TestConfigError);
    expect(() => parsePublicHostsSetting('ok.example.com,bad host', 'HOSTS', refusal)).toThrow('HOSTS has entries that are not host names: "bad host"');
  });
});
