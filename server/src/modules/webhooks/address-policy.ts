import { BlockList, isIP } from 'node:net';

/**
 * Destinations a webhook may never reach unless private URLs are allowed: anything that would let
 * an app developer make Plaza call into its own network. The WHATWG URL parser has already turned
 * decimal, octal and hex IPv4 spellings (http://2130706433/, http://0177.1/) into dotted form.
 */
const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network", including 0.0.0.0
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, including 169.254.169.254 metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved and broadcast
] as const) {
  blocked.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96], // NAT64 can map onto private IPv4
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  blocked.addSubnet(network, prefix, 'ipv6');
}

const BLOCKED_HOSTNAMES = new Set(['localhost', 'metadata.google.internal', 'metadata', 'instance-data']);

/** The IPv4 address hidden in an IPv4-mapped or -compatible IPv6 address (::ffff:127.0.0.1, ::ffff:7f00:1). */
function embeddedIpv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^::(ffff:(0{1,4}:)?)?(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[3];
  const hex = /^::(ffff:(0{1,4}:)?)?([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex) {
    const high = parseInt(hex[3], 16);
    const low = parseInt(hex[4], 16);
    return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  }
  return undefined;
}

/** Why an IP address may not be a webhook destination, or undefined when it may. */
export function blockedAddressReason(address: string): string | undefined {
  const family = isIP(address);
  if (family === 0) return `${address} is not an IP address`;
  if (family === 6) {
    const v4 = embeddedIpv4(address);
    if (v4) return blockedAddressReason(v4);
    return blocked.check(address, 'ipv6') ? `${address} is a loopback, private, link-local or reserved address` : undefined;
  }
  return blocked.check(address, 'ipv4') ? `${address} is a loopback, private, link-local, CGNAT, metadata or reserved address` : undefined;
}

/**
 * What can be said of a URL's host before any DNS lookup: literal internal addresses and names
 * that always mean this machine. Names that resolve to internal addresses are caught at connect time.
 */
export function blockedHostReason(url: URL): string | undefined {
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.$/, '');
  if (isIP(host)) return blockedAddressReason(host);
  if (BLOCKED_HOSTNAMES.has(host) || host.endsWith('.localhost') || host.endsWith('.internal')) return `${host} is an internal host name`;
  return undefined;
}
