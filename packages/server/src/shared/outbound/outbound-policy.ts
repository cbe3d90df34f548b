import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * One entry of `CMS_OUTBOUND_ALLOW`: a CIDR range or address (`10.0.0.0/8`, `fd00::/8`,
 * `127.0.0.1`), or a host name (`idp.internal`); an address or a host name may carry a port
 * (`127.0.0.1:8080`, `[::1]:8080`, `idp.internal:8443`), which then is the only port allowed.
 */
export type OutboundAllowEntry =
  | { kind: 'range'; range: [ipaddr.IPv4 | ipaddr.IPv6, number]; port: number | null; text: string }
  | { kind: 'host'; host: string; port: number | null; text: string };

/** What outbound requests may reach beyond public unicast addresses. */
export interface OutboundPolicy {
  allow: readonly OutboundAllowEntry[];
}

/** IPv6 global unicast (2000::/3): the only IPv6 space a request may reach without an allow-list entry. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

function parsePort(text: string): number | null {
  if (!/^\d{1,5}$/.test(text)) return null;
  const port = Number(text);
  return port >= 1 && port <= 65535 ? port : null;
}

/** A host name as URLs carry it: lower case, no trailing dot. */
export function normalHost(host: string): string {
  return host.toLowerCase().replace(/\.$/, '');
}

/**
 * Parses one `CMS_OUTBOUND_ALLOW` entry (see {@link OutboundAllowEntry}); null when it is none
 * of those forms. Addresses must be written plainly (dotted decimal IPv4, IPv6).
 */
export function parseAllowEntry(raw: string): OutboundAllowEntry | null {
  const text = raw.trim();
  if (text === '') return null;
  if (text.includes('/')) {
    const [address = '', bits = ''] = text.split('/');
    if (isIP(address) === 0 || !/^\d{1,3}$/.test(bits)) return null;
    try {
      return { kind: 'range', range: ipaddr.parseCIDR(`${address}/${bits}`), port: null, text };
    } catch {
      return null;
    }
  }
  let host = text;
  let port: number | null = null;
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  if (bracketed) {
    host = bracketed[1] ?? '';
    if (bracketed[2] !== undefined) {
      port = parsePort(bracketed[2]);
      if (port === null) return null;
    }
    if (isIP(host) !== 6) return null;
  } else if (isIP(text) === 0) {
    const colon = text.lastIndexOf(':');
    if (colon !== -1) {
      port = parsePort(text.slice(colon + 1));
      if (port === null) return null;
      host = text.slice(0, colon);
    }
  }
  const family = isIP(host);
  if (family !== 0) {
    const address = ipaddr.parse(host);
    return { kind: 'range', range: [address, family === 4 ? 32 : 128], port, text };
  }
  if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?$/i.test(host)) return null;
  return { kind: 'host', host: normalHost(host), port, text };
}

/**
 * Why an address is not a public one — the ipaddr.js range name (`loopback`, `private`,
 * `linkLocal`, `uniqueLocal`, `carrierGradeNat`, `multicast`, `unspecified`, `reserved`, …) —
 * or null for a public unicast address. IPv4-mapped IPv6 addresses are judged as the IPv4
 * address they carry; IPv6 outside global unicast (2000::/3), and the translation ranges in
 * it (6to4, Teredo), are not public.
 */
export function nonPublicRange(address: string): string | null {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return 'invalid';
  }
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  const range = parsed.range();
  if (parsed.kind() === 'ipv6' && !parsed.match(GLOBAL_UNICAST_V6)) {
    return range === 'unicast' ? 'reserved' : range;
  }
  return range === 'unicast' ? null : range;
}

function sameFamilyMatch(address: ipaddr.IPv4 | ipaddr.IPv6, range: [ipaddr.IPv4 | ipaddr.IPv6, number]) {
  return address.kind() === range[0].kind() && address.match(range);
}

/** Whether `address` (connected to on `port`) is covered by an address or range entry of the policy. */
export function isAddressAllowListed(policy: OutboundPolicy, address: string, port: number): boolean {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return false;
  }
  const unmapped =
    parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()
      ? (parsed as ipaddr.IPv6).toIPv4Address()
      : parsed;
  return policy.allow.some(
    (entry) =>
      entry.kind === 'range' &&
      (entry.port === null || entry.port === port) &&
      (sameFamilyMatch(parsed, entry.range) || sameFamilyMatch(unmapped, entry.range)),
  );
}

/** Whether a host-name entry of the policy allows `host` (as the URL names it) on `port`. */
export function isHostAllowListed(policy: OutboundPolicy, host: string, port: number): boolean {
  const name = normalHost(host);
  return policy.allow.some(
    (entry) => entry.kind === 'host' && entry.host === name && (entry.port === null || entry.port === port),
  );
}
