import { describe, expect, it } from 'vitest';
import { addressBucket, clientAddressFrom, isLoopbackHost, parseAddressList } from '@/lib/net/addresses';

describe('client address', () => {
  const none = parseAddressList('').list;
  const proxies = parseAddressList('10.0.0.0/8, ::1').list;

  it('is the socket peer when no proxy is trusted, whatever X-Forwarded-For says', () => {
    expect(clientAddressFrom('198.51.100.7', '1.2.3.4', none)).toBe('198.51.100.7');
    expect(clientAddressFrom('::ffff:198.51.100.7', null, none)).toBe('198.51.100.7');
    expect(clientAddressFrom(null, '1.2.3.4', none)).toBe('unknown');
  });

  it('is the right-most untrusted hop behind a trusted proxy, never the client-written left part', () => {
    expect(clientAddressFrom('10.1.1.1', 'spoofed, 203.0.113.9', proxies)).toBe('203.0.113.9');
    expect(clientAddressFrom('10.1.1.1', '1.1.1.1, 203.0.113.9, 10.2.2.2', proxies)).toBe('203.0.113.9');
    expect(clientAddressFrom('10.1.1.1', 'not-an-ip', proxies)).toBe('unknown');
    expect(clientAddressFrom('198.51.100.7', '203.0.113.9', proxies)).toBe('198.51.100.7');
  });

  it('refuses a TRUSTED_PROXIES entry that is not an address or range', () => {
    expect(() => parseAddressList('10.0.0.0/33')).toThrow('"10.0.0.0/33"');
    expect(() => parseAddressList('proxy.example')).toThrow('"proxy.example"');
  });

  it('buckets IPv6 by /64 and knows loopback hosts', () => {
    expect(addressBucket('2001:db8:0:1::5')).toBe('2001:db8:0:1::/64');
    expect(addressBucket('198.51.100.7')).toBe('198.51.100.7');
    expect(['localhost', '127.0.0.1', '127.8.9.10', '[::1]', '::1'].map(isLoopbackHost)).toEqual([true, true, true, true, true]);
    expect(['example.com', '10.0.0.1', '128.0.0.1', '[2001:db8::1]'].map(isLoopbackHost)).toEqual([false, false, false, false]);
  });
});
