// Guards: an HTTP edge may listen on loopback addresses only (127.0.0.0/8, ::1, localhost); wildcard, LAN, public and IPv4-mapped addresses and other names are refused.
import { describe, expect, it } from 'vitest';
import { hostForUrl, isLoopbackBindAddress } from './loopback.js';

describe('isLoopbackBindAddress', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.0.0.2', true],
    ['127.255.255.254', true],
    ['localhost', true],
    ['LocalHost', true],
    ['::1', true],
    ['[::1]', true],
    ['0:0:0:0:0:0:0:1', true],
    ['0.0.0.0', false],
    ['::', false],
    ['[::]', false],
    ['192.168.1.10', false],
    ['192.168.1.5', false],
    ['10.0.0.1', false],
    ['192.0.2.1', false],
    ['128.0.0.1', false],
    ['1.127.0.0', false],
    ['127.1', false],
    ['0127.0.0.1', false],
    ['127.0.0.256', false],
    ['::ffff:127.0.0.1', false],
    ['localhost.evil.example', false],
    ['example.com', false],
    ['', false],
  ])('%j -> %s', (host, loopback) => {
    expect(isLoopbackBindAddress(host)).toBe(loopback);
  });
});

describe('hostForUrl', () => {
  it('brackets IPv6 literals only', () => {
    expect(hostForUrl('::1')).toBe('[::1]');
    expect(hostForUrl('[::1]')).toBe('[::1]');
    expect(hostForUrl('127.0.0.1')).toBe('127.0.0.1');
    expect(hostForUrl('localhost')).toBe('localhost');
  });
});
