import { isIP } from 'net';

import { isFqdn } from '../internal/idna';
import { fn, pkg, s } from './builtin';

/** Go's net.ParseIP: an IPv4 or IPv6 address, without a zone (`fe80::1%eth0` is refused). */
const family = (text: string): number => (text.includes('%') ? 0 : isIP(text));

/** Go's `ParseIP(s).To4() != nil`: an IPv4 address, or an IPv6 one that maps one (`::ffff:1.2.3.4`). */
function isIPv4(text: string): boolean {
  const found = family(text);
  return found === 4 || (found === 6 && /^\[::ffff:[0-9a-f]{1,4}:[0-9a-f]{1,4}\]$/.test(new URL(`http://[${text}]`).host));
}

function cidr(text: string): boolean {
  const [address, bits, ...rest] = text.split('/');
  if (rest.length > 0 || bits === undefined || !/^\d+$/.test(bits)) return false;
  const found = family(address);
  return found !== 0 && Number(bits) <= (found === 4 ? 32 : 128);
}

export const net = pkg('net', [
  fn('net.IP', ['string'], ([text]) => family(s(text)) !== 0, { validator: true }),
  fn('net.IPv4', ['string'], ([text]) => isIPv4(s(text)), { validator: true }),
  fn('net.IPv6', ['string'], ([text]) => family(s(text)) === 6, { validator: true }),
  fn('net.IPCIDR', ['string'], ([text]) => cidr(s(text)), { validator: true }),
  fn('net.FQDN', ['string'], ([text]) => isFqdn(s(text)), { validator: true }),
]);
