/**
 * Which addresses a Client ID Metadata Document may be fetched from when deployed: globally routable unicast only,
 * and an IPv6 address that carries an IPv4 one (mapped, compatible, translated, NAT64, 6to4) is judged by the IPv4
 * inside it (issue 42 item 6).
 */

import { beforeAll, describe, expect, test } from 'vitest';
import { publicAddressCheck } from '../../../lib/auth/authorization-server/public-address.js';

let isPublic: (address: string) => boolean;
beforeAll(async () => {
  isPublic = await publicAddressCheck();
});

describe('addresses a stranger\'s URL may not reach', () => {
  test.each([
    // IPv4 special-purpose ranges (the ones the hand list held before, and the rest of the registry).
    ['0.0.0.0/8', '0.1.2.3'],
    ['10.0.0.0/8', '10.1.2.3'],
    ['100.64.0.0/10 (carrier-grade NAT)', '100.64.0.1'],
    ['127.0.0.0/8', '127.0.0.1'],
    ['169.254.0.0/16 (cloud metadata)', '169.254.169.254'],
    ['172.16.0.0/12', '172.16.0.1'],
    ['192.0.0.0/24', '192.0.0.8'],
    ['192.0.2.0/24', '192.0.2.1'],
    ['192.88.99.0/24 (6to4 relay anycast)', '192.88.99.1'],
    ['192.168.0.0/16', '192.168.1.1'],
    ['198.18.0.0/15', '198.18.0.1'],
    ['198.51.100.0/24', '198.51.100.1'],
    ['203.0.113.0/24', '203.0.113.1'],
    ['224.0.0.0/4 (multicast)', '224.0.0.1'],
    ['240.0.0.0/4', '240.0.0.1'],
    ['255.255.255.255', '255.255.255.255'],
    // IPv6 ranges the hand list held.
    ['::/128', '::'],
    ['::1/128', '::1'],
    ['::ffff:0:0/96 with a loopback inside', '::ffff:127.0.0.1'],
    ['::ffff:0:0/96 in hex', '::ffff:7f00:1'],
    ['64:ff9b::/96 with a private IPv4 inside', '64:ff9b::10.0.0.1'],
    ['100::/64 (discard)', '100::1'],
    ['2001:db8::/32 (documentation)', '2001:db8::1'],
    ['fc00::/7 (unique local)', 'fd00::1'],
    ['fe80::/10 (link-local)', 'fe80::1'],
    ['ff00::/8 (multicast)', 'ff02::1'],
    // The ranges issue 42 found reached: IPv4 carried inside IPv6, and site-local.
    ['::/96 (IPv4-compatible) with a loopback inside', '::127.0.0.1'],
    ['::/96 (IPv4-compatible) with cloud metadata inside', '::a9fe:a9fe'],
    ['::ffff:0:0:0/96 (IPv4-translated) with a loopback inside', '::ffff:0:7f00:1'],
    ['64:ff9b::/96 (NAT64) with a loopback inside', '64:ff9b::7f00:1'],
    ['64:ff9b:1::/48 (local-use NAT64), whatever it carries', '64:ff9b:1::808:808'],
    ['2002::/16 (6to4) with a loopback inside', '2002:7f00:1::1'],
    ['2002::/16 (6to4) with a private network inside', '2002:a00:1::1'],
    ['fec0::/10 (site-local)', 'fec0::1'],
    // Other IPv6 space that is not global unicast.
    ['2001::/32 (Teredo)', '2001:0:4136:e378:8000:63bf:3fff:fdd2'],
    ['outside 2000::/3', '4000::1'],
    ['a bracketed literal', '[::1]'],
    ['something that is no address', 'example.com'],
  ])('%s: %s', (_, address) => {
    expect(isPublic(address)).toBe(false);
  });
});

describe('addresses it may reach', () => {
  test.each([
    ['a public IPv4 address', '8.8.8.8'],
    ['a public IPv6 address', '2606:4700:4700::1111'],
    ['a public IPv4 address mapped into IPv6', '::ffff:8.8.8.8'],
    ['a public IPv4 address behind the NAT64 well-known prefix', '64:ff9b::808:808'],
    ['a public IPv4 address behind 6to4', '2002:808:808::1'],
  ])('%s: %s', (_, address) => {
    expect(isPublic(address)).toBe(true);
  });
});
