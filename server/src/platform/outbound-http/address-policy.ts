import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Destinations a webhook may never reach unless private URLs are allowed: anything that would let
 * an app developer make Plaza call into its own network. The WHATWG URL parser has already turned
 * decimal, octal and hex IPv4 spellings (http://2130706433/, http://0177.1/) into dotted form.
 *
 * Classified by ipaddr.js, which keeps the IANA special-purpose registries: only its `unicast`
 * (ordinary public) addresses pass, so a range added there is refused here without a hand-kept list.
 * Whole ranges that embed or tunnel to an IPv4 address (6to4 2002::/16, Teredo 2001::/32, NAT64
 * 64:ff9b::/96 and 64:ff9b:1::/48, IPv4-translated ::ffff:0:0:0/96) are refused outright, whatever
 * IPv4 they carry: a relay or translator can deliver them onto an internal network.
 */
const RANGE_WORDS: Record<string, string> = {
  unspecified: 'an unspecified (reserved, "this network") address',
  broadcast: 'a broadcast (reserved) address',
  multicast: 'a multicast (reserved) address',
  linkLocal: 'a link-local address (cloud metadata lives here)',
  loopback: 'a loopback address',
  carrierGradeNat: 'a CGNAT (shared, private) address',
  private: 'a private address',
  uniqueLocal: 'a unique local (private) address',
  deprecatedSiteLocal: 'a site-local (private, deprecated) address',
  '6to4': 'a 6to4 address (reserved: it tunnels to an embedded IPv4 address)',
  teredo: 'a Teredo address (reserved: it tunnels to an embedded IPv4 address)',
  rfc6052: 'a NAT64 address (reserved: it is translated to an embedded IPv4 address)',
  rfc6145: 'an IPv4-translated address (reserved: it is translated to an embedded IPv4 address)',
  ipv4Compatible: 'an IPv4-compatible address (reserved, deprecated)',
};

/** ::/96, IPv4-compatible IPv6 (deprecated by RFC 4291); ipaddr.js files it under `unicast`. */
const IPV4_COMPATIBLE: [ipaddr.IPv6, number] = [ipaddr.IPv6.parse('::'), 96];

function rangeOf(address: ipaddr.IPv4 | ipaddr.IPv6): string {
  const range = address.range();
  if (range === 'unicast' && address.kind() === 'ipv6' && address.match(IPV4_COMPATIBLE)) return 'ipv4Compatible';
  return range;
}

const BLOCKED_HOSTNAMES = new Set(['localhost', 'metadata.google.internal', 'metadata', 'instance-data']);

/** Why an IP address may not be a webhook destination, or undefined when it may. */
export function blockedAddressReason(address: string): string | undefined {
  if (isIP(address) === 0) return `${address} is not an IP address`;
  let parsed = ipaddr.parse(address);
  let mapped = '';
  // ::ffff:a.b.c.d is how a dual-stack socket spells an IPv4 peer: it is judged as that IPv4 address.
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
    mapped = ` mapped onto ${parsed.toString()},`;
  }
  const range = rangeOf(parsed);
  if (range === 'unicast') return undefined;
  return `${address} is${mapped} ${RANGE_WORDS[range] ?? `a reserved address (${range})`}`;
}

/**
 * What can be said of a URL's host before any DNS lookup: literal internal addresses and names
 * that always mean this machine. Names that resolve to internal addresses are caught at connect time.
 */
export function blockedHostReason(url: URL): string | undefined {
  const host = url.hostname
    .replace(/^\[|\]$/g, '')
    .toLowerCase()
    .replace(/\.$/, '');
  if (isIP(host)) return blockedAddressReason(host);
  if (BLOCKED_HOSTNAMES.has(host) || host.endsWith('.localhost') || host.endsWith('.internal')) return `${host} is an internal host name`;
  return undefined;
}
