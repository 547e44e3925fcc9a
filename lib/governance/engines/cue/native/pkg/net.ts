import { isIP } from 'net';

import { fn, pkg, s } from './builtin';

const FQDN = /^(?=.{1,253}\.?$)(?:(?!-)[A-Za-z0-9-]{1,63}(?<!-)\.)*(?!-)[A-Za-z0-9-]{1,63}(?<!-)\.?$/;

function cidr(text: string): boolean {
  const [address, bits, ...rest] = text.split('/');
  if (rest.length > 0 || bits === undefined || !/^\d+$/.test(bits)) return false;
  const family = isIP(address);
  return family !== 0 && Number(bits) <= (family === 4 ? 32 : 128);
}

export const net = pkg('net', [
  fn('net.IP', ['string'], ([text]) => isIP(s(text)) !== 0, { validator: true }),
  fn('net.IPv4', ['string'], ([text]) => isIP(s(text)) === 4, { validator: true }),
  fn('net.IPv6', ['string'], ([text]) => isIP(s(text)) === 6, { validator: true }),
  fn('net.IPCIDR', ['string'], ([text]) => cidr(s(text)), { validator: true }),
  fn('net.FQDN', ['string'], ([text]) => FQDN.test(s(text)), { validator: true }),
]);
