import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

import type { buildConnector } from 'undici';

/**
 * Which addresses calls to URLs that callers give (model endpoints, perimeter resolvers, remote
 * engines) may reach. Link-local addresses (cloud instance metadata among them) never; loopback
 * (the Lambda runtime API, the local server itself) and private networks only when allowed.
 */
export interface AddressPolicy {
  readonly allowLoopback: boolean;
  readonly allowPrivateNetworks: boolean;
}

type AddressKind = 'link-local or metadata' | 'unspecified, multicast or broadcast' | 'loopback' | 'private network';

function blockList(ranges: Array<[string, number, 'ipv4' | 'ipv6']>): BlockList {
  const list = new BlockList();
  for (const [network, prefix, type] of ranges) list.addSubnet(network, prefix, type);
  return list;
}

const ALWAYS: Array<[BlockList, AddressKind]> = [
  [
    blockList([
      ['169.254.0.0', 16, 'ipv4'],
      ['fe80::', 10, 'ipv6'],
      ['fd00:ec2::254', 128, 'ipv6'],
      ['100.100.100.200', 32, 'ipv4'],
    ]),
    'link-local or metadata',
  ],
  [
    blockList([
      ['0.0.0.0', 8, 'ipv4'],
      ['224.0.0.0', 4, 'ipv4'],
      ['255.255.255.255', 32, 'ipv4'],
      ['::', 128, 'ipv6'],
      ['ff00::', 8, 'ipv6'],
    ]),
    'unspecified, multicast or broadcast',
  ],
];
const LOOPBACK = blockList([
  ['127.0.0.0', 8, 'ipv4'],
  ['::1', 128, 'ipv6'],
]);
const PRIVATE = blockList([
  ['10.0.0.0', 8, 'ipv4'],
  ['172.16.0.0', 12, 'ipv4'],
  ['192.168.0.0', 16, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'],
  ['fc00::', 7, 'ipv6'],
]);
/** Names that are such addresses wherever they are resolved. */
const LOOPBACK_NAMES = /^(localhost|localhost\.localdomain|.+\.localhost)\.?$/i;
const METADATA_NAMES = /^(metadata|metadata\.google\.internal|instance-data(\.ec2\.internal)?)\.?$/i;

/** The eight 16-bit groups of an IPv6 address (a dotted IPv4 tail counts as the last two). */
function groupsOf(ipv6: string): number[] {
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(ipv6);
  const hex = dotted ? `${ipv6.slice(0, dotted.index)}${((+dotted[1] << 8) | +dotted[2]).toString(16)}:${((+dotted[3] << 8) | +dotted[4]).toString(16)}` : ipv6;
  const [head, tail] = hex.split('::').map((part) => (part ? part.split(':') : []));
  const groups = tail ? [...head, ...Array<string>(8 - head.length - tail.length).fill('0'), ...tail] : head;
  return groups.map((group) => parseInt(group, 16));
}

/**
 * The IPv4 address an IPv6 address carries to its destination: IPv4-mapped (::ffff:127.0.0.1),
 * NAT64 (64:ff9b::a9fe:a9fe reaches 169.254.169.254 through a NAT64 gateway) and 6to4 (2002::/16).
 */
function normalised(address: string): { address: string; type: 'ipv4' | 'ipv6' } {
  if (isIP(address) !== 6) return { address, type: 'ipv4' };
  const g = groupsOf(address);
  const ipv4 = (high: number, low: number) => ({ address: [high >> 8, high & 255, low >> 8, low & 255].join('.'), type: 'ipv4' as const });
  if (g.slice(0, 5).every((group) => group === 0) && g[5] === 0xffff) return ipv4(g[6], g[7]);
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((group) => group === 0)) return ipv4(g[6], g[7]);
  if (g[0] === 0x2002) return ipv4(g[1], g[2]);
  return { address, type: 'ipv6' };
}

/** Why `address` (an IP) may not be reached under `policy`, or undefined when it may. */
export function forbiddenAddress(address: string, policy: AddressPolicy): AddressKind | undefined {
  const { address: ip, type } = normalised(address);
  for (const [list, kind] of ALWAYS) if (list.check(ip, type)) return kind;
  if (!policy.allowLoopback && LOOPBACK.check(ip, type)) return 'loopback';
  if (!policy.allowPrivateNetworks && PRIVATE.check(ip, type)) return 'private network';
  return undefined;
}

const SETTING: Partial<Record<AddressKind, string>> = { loopback: ' (http.allow-loopback)', 'private network': ' (http.allow-private-networks)' };
/** "a loopback address", "an unspecified, multicast or broadcast address". */
const anAddress = (kind: AddressKind) => `${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind} address`;

/**
 * Why the host of `url` may not be reached, when that is known before resolving it: an IP literal
 * (in any spelling the URL parser normalises, such as http://2130706433/) or a name that always
 * means loopback or instance metadata. Names that resolve to such addresses are refused when connecting.
 */
export function forbiddenUrl(url: string, policy: AddressPolicy): string | undefined {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  const kind = isIP(host)
    ? forbiddenAddress(host, policy)
    : METADATA_NAMES.test(host)
      ? 'link-local or metadata'
      : LOOPBACK_NAMES.test(host) && !policy.allowLoopback
        ? 'loopback'
        : undefined;
  return kind && `must not point at ${anAddress(kind)}${SETTING[kind] ?? ''}`;
}

/** The error a refused address fails the connection with (its code marks it as a connection failure). */
class ForbiddenAddressError extends Error {
  readonly code = 'EADDRFORBIDDEN';
}

/**
 * A `lookup` for sockets: resolves as usual, then refuses the connection when an address is
 * forbidden, so the address checked is the one connected to and DNS cannot swap it between a
 * check and the connection.
 */
function guardedLookup(policy: AddressPolicy) {
  return (hostname: string, options: object, callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const refused = addresses.map((entry) => forbiddenAddress(entry.address, policy)).find((kind) => kind !== undefined);
      if (refused) return callback(new ForbiddenAddressError(`${hostname} resolves to ${anAddress(refused)}, which this service does not call`), []);
      if ((options as { all?: boolean }).all) return callback(null, addresses);
      return callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

/**
 * undici's connector (`build`, undici's buildConnector) with the policy applied to every connection it makes, redirects included:
 * an IP literal (which a socket does not look up) is checked as it is, a name on the addresses it
 * resolves to.
 */
export function guardedConnector(build: typeof buildConnector, policy: AddressPolicy, options: { timeout: number }): buildConnector.connector {
  const connect = build({ ...options, lookup: guardedLookup(policy) } as buildConnector.BuildOptions);
  return (target, callback) => {
    const literal = target.hostname.replace(/^\[|\]$/g, '');
    const refused = isIP(literal) ? forbiddenAddress(literal, policy) : undefined;
    if (refused) return callback(new ForbiddenAddressError(`${literal} is ${anAddress(refused)}, which this service does not call`), null);
    return connect(target, callback);
  };
}
