/**
 * Where a webhook may point. A webhook makes the server send requests on an admin's word, so it must not become a
 * way into the hospital's own network (SSRF): a URL is https to a public address, or names a host the deployment
 * listed in WEBHOOK_HOSTS (which may then be plain http or private). The rule is checked twice: on the URL when it
 * is saved (an address written in it), and on every address a host name resolves to when it is sent (a public
 * name that resolves to a private address, or changes to one later, is refused at connection time).
 */
import { lookup as dnsLookup } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { WEBHOOK_MESSAGES } from '@uvd/contracts';

/** Addresses that are not the public internet: this host, private networks, link-local, shared, reserved. */
const PRIVATE = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  PRIVATE.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  // NAT64 addresses reach IPv4 hosts, private ones included. (IPv4-mapped ones, ::ffff:a.b.c.d, BlockList checks
  // against the IPv4 rules itself.)
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  PRIVATE.addSubnet(network, prefix, 'ipv6');

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return PRIVATE.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** The URL's host as WEBHOOK_HOSTS lists it: lowercase, an IPv6 address without brackets. */
export const hostOf = (url: URL): string => url.hostname.toLowerCase().replace(/^\[|\]$/g, '');

const isLocalName = (host: string) => host === 'localhost' || host.endsWith('.localhost');

/** Why `text` cannot be a webhook's URL (the reason, for a 400 on the field `url`), or undefined when it can. */
export function urlProblem(text: string, allowedHosts: readonly string[]): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return WEBHOOK_MESSAGES.url;
  }
  const host = hostOf(url);
  if (allowedHosts.includes(host)) return url.protocol === 'https:' || url.protocol === 'http:' ? undefined : WEBHOOK_MESSAGES.url;
  if (url.protocol !== 'https:') return WEBHOOK_MESSAGES.url;
  if (isLocalName(host) || isPrivateAddress(host)) {
    return `${WEBHOOK_MESSAGES.url}; ${host} is a private or local address, which only WEBHOOK_HOSTS can allow`;
  }
  return undefined;
}

/** Thrown (as the connection's error) when a host name resolves to an address that is not allowed. */
export class RefusedAddressError extends Error {
  constructor(host: string, address: string) {
    super(`${host} resolves to ${address}, a private or local address (WEBHOOK_HOSTS can allow the host)`);
    this.name = 'RefusedAddressError';
  }
}

/**
 * A `lookup` for http(s).request that refuses private addresses, so the check holds for the address really
 * connected to (a DNS answer cannot swap in a private one after the URL was accepted).
 */
export function publicOnlyLookup(host: string): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) {
        callback(error, []);
        return;
      }
      const refused = addresses.find((entry) => isPrivateAddress(entry.address));
      if (refused) {
        callback(new RefusedAddressError(host, refused.address), []);
        return;
      }
      if (options.all) {
        callback(null, addresses);
        return;
      }
      const [first] = addresses;
      if (!first) {
        callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
        return;
      }
      callback(null, first.address, first.family);
    });
  };
}
