import { describe, expect, it } from 'vitest';
import { isAddressAllowListed, isHostAllowListed, nonPublicRange, parseAllowEntry } from './outbound-policy';

describe('nonPublicRange', () => {
  it('names the range of every non-public address, IPv4-mapped ones included', () => {
    const cases: Array<[string, string]> = [
      ['127.0.0.1', 'loopback'],
      ['127.255.255.254', 'loopback'],
      ['0.0.0.0', 'unspecified'],
      ['10.1.2.3', 'private'],
      ['172.31.255.255', 'private'],
      ['192.168.0.1', 'private'],
      ['169.254.169.254', 'linkLocal'],
      ['100.64.0.1', 'carrierGradeNat'],
      ['224.0.0.251', 'multicast'],
      ['255.255.255.255', 'broadcast'],
      ['192.0.2.10', 'reserved'],
      ['::1', 'loopback'],
      ['::', 'unspecified'],
      ['fe80::1', 'linkLocal'],
      ['fd00::1', 'uniqueLocal'],
      ['fc12::1', 'uniqueLocal'],
      ['ff02::1', 'multicast'],
      ['::ffff:127.0.0.1', 'loopback'],
      ['::ffff:169.254.169.254', 'linkLocal'],
      ['::ffff:10.0.0.1', 'private'],
      ['2002:7f00:1::', '6to4'],
      ['64:ff9b::7f00:1', 'rfc6052'],
    ];
    for (const [address, range] of cases) expect(nonPublicRange(address), address).toBe(range);
    // IPv4-compatible (::a.b.c.d) and other space outside 2000::/3 is not public either.
    expect(nonPublicRange('::7f00:1')).not.toBeNull();
    expect(nonPublicRange('not an address')).toBe('invalid');
  });

  it('passes public unicast addresses', () => {
    for (const address of ['93.184.215.14', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8']) {
      expect(nonPublicRange(address), address).toBeNull();
    }
  });
});

describe('CMS_OUTBOUND_ALLOW entries', () => {
  it('reads ranges, addresses and host names, with or without a port', () => {
    expect(parseAllowEntry('10.0.0.0/8')).toMatchObject({ kind: 'range', port: null });
    expect(parseAllowEntry('fd00::/8')).toMatchObject({ kind: 'range', port: null });
    expect(parseAllowEntry('127.0.0.1')).toMatchObject({ kind: 'range', port: null });
    expect(parseAllowEntry('127.0.0.1:8080')).toMatchObject({ kind: 'range', port: 8080 });
    expect(parseAllowEntry('[::1]:8080')).toMatchObject({ kind: 'range', port: 8080 });
    expect(parseAllowEntry('::1')).toMatchObject({ kind: 'range', port: null });
    expect(parseAllowEntry('IdP.Internal.')).toMatchObject({
      kind: 'host',
      host: 'idp.internal',
      port: null,
    });
    expect(parseAllowEntry('idp.internal:8443')).toMatchObject({
      kind: 'host',
      host: 'idp.internal',
      port: 8443,
    });
  });

  it('refuses what is none of those (no loose address forms)', () => {
    for (const entry of [
      '',
      '10.0.0.0/',
      '10.0.0.0/33',
      'http://x',
      'a b',
      'x:0',
      'x:70000',
      '[nope]:80',
      '0x7f.1/8',
    ]) {
      expect(parseAllowEntry(entry), entry).toBeNull();
    }
  });

  it('matches addresses (mapped or not) and ports, and host names exactly', () => {
    const policy = {
      allow: ['10.0.0.0/8', '127.0.0.1:8080', 'idp.internal'].map((entry) => parseAllowEntry(entry)!),
    };
    expect(isAddressAllowListed(policy, '10.9.9.9', 443)).toBe(true);
    expect(isAddressAllowListed(policy, '::ffff:10.9.9.9', 443)).toBe(true);
    expect(isAddressAllowListed(policy, '127.0.0.1', 8080)).toBe(true);
    expect(isAddressAllowListed(policy, '127.0.0.1', 8081)).toBe(false);
    expect(isAddressAllowListed(policy, '169.254.169.254', 80)).toBe(false);
    expect(isHostAllowListed(policy, 'IDP.internal.', 443)).toBe(true);
    expect(isHostAllowListed(policy, 'evil.idp.internal', 443)).toBe(false);
  });
});
