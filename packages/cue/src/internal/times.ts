/**
 * Go's package time as CUE's time builtins use it (pkg/time): time.Parse with the RFC 3339 layouts (time.Time,
 * time.Format) and time.ParseDuration (time.Duration), read from Go's sources, with Go's error messages.
 */
const digitsAt = (text: string, at: number, count: number): boolean => {
  for (let i = at; i < at + count; i++) if (!(text.charCodeAt(i) >= 0x30 && text.charCodeAt(i) <= 0x39)) return false;
  return true;
};

const daysIn = (month: number, year: number): number => new Date(Date.UTC(year, month, 0)).getUTCDate();

/**
 * Whether Go's time.Parse(time.RFC3339Nano, text) takes it (RFC3339 takes the same): a four-digit year, `-`,
 * two-digit month and day, an upper case `T`, a one- or two-digit hour, `:`, two-digit minutes and seconds, a
 * fraction of any length after `.` or `,`, and `Z` or an offset `±hh:mm` (up to 24:60, as Go's range test is
 * `>`), in range (a 30 February is not a date), and nothing else: no lower case `t` or `z`, no space.
 */
export function isRfc3339(text: string): boolean {
  if (text.length < 19 || !digitsAt(text, 0, 4) || text[4] !== '-' || !digitsAt(text, 5, 2) || text[7] !== '-' || !digitsAt(text, 8, 2) || text[10] !== 'T')
    return false;
  const [year, month, day] = [Number(text.slice(0, 4)), Number(text.slice(5, 7)), Number(text.slice(8, 10))];
  let at = 11;
  const hourDigits = digitsAt(text, at, 2) ? 2 : digitsAt(text, at, 1) ? 1 : 0;
  if (hourDigits === 0) return false;
  const hour = Number(text.slice(at, at + hourDigits));
  at += hourDigits;
  if (text[at] !== ':' || !digitsAt(text, at + 1, 2) || text[at + 3] !== ':' || !digitsAt(text, at + 4, 2)) return false;
  const [minute, second] = [Number(text.slice(at + 1, at + 3)), Number(text.slice(at + 4, at + 6))];
  at += 6;
  if ((text[at] === '.' || text[at] === ',') && digitsAt(text, at + 1, 1)) {
    at += 1;
    while (digitsAt(text, at, 1)) at++;
  }
  const zone = text.slice(at);
  if (zone !== 'Z') {
    if (zone.length !== 6 || (zone[0] !== '+' && zone[0] !== '-') || !digitsAt(zone, 1, 2) || zone[3] !== ':' || !digitsAt(zone, 4, 2)) return false;
    if (Number(zone.slice(1, 3)) > 24 || Number(zone.slice(4, 6)) > 60) return false;
  }
  return month >= 1 && month <= 12 && day >= 1 && day <= daysIn(month, year) && hour < 24 && minute < 60 && second < 60;
}

/** Go's time.quote (the quoting of its duration errors): quotes and backslashes escaped, any byte not printable ASCII as \xhh. */
function quote(text: string): string {
  let out = '"';
  for (const character of text) {
    const code = character.codePointAt(0) as number;
    if (code < 0x20 || code >= 0x80) for (const byte of Buffer.from(character, 'utf8')) out += `\\x${byte.toString(16).padStart(2, '0')}`;
    else out += character === '"' || character === '\\' ? `\\${character}` : character;
  }
  return `${out}"`;
}

const UNITS: ReadonlyMap<string, bigint> = new Map([
  ['ns', 1n],
  ['us', 1_000n],
  ['\u00b5s', 1_000n], // U+00B5 micro sign
  ['\u03bcs', 1_000n], // U+03BC Greek small letter mu
  ['ms', 1_000_000n],
  ['s', 1_000_000_000n],
  ['m', 60_000_000_000n],
  ['h', 3_600_000_000_000n],
]);

const LIMIT = 1n << 63n;

/**
 * Go's time.ParseDuration (as of Go 1.23): `[-+]?([0-9]*(\.[0-9]*)?[a-z]+)+` or `0`, whose nanoseconds must
 * fit an int64 (every term and every sum is checked: `9999999999999h` overflows). The error Go gives, or undefined.
 */
export function durationError(text: string): string | undefined {
  const invalid = `time: invalid duration ${quote(text)}`;
  let rest = text;
  let negative = false;
  if (rest[0] === '-' || rest[0] === '+') {
    negative = rest[0] === '-';
    rest = rest.slice(1);
  }
  if (rest === '0') return undefined;
  if (rest === '') return invalid;
  let total = 0n;
  while (rest !== '') {
    if (!(rest[0] === '.' || digitsAt(rest, 0, 1))) return invalid;
    // The integer part: past 2^63 it overflows.
    let whole = 0n;
    let i = 0;
    for (; digitsAt(rest, i, 1); i++) {
      whole = whole * 10n + BigInt(rest.charCodeAt(i) - 0x30);
      if (whole > LIMIT) return invalid;
    }
    const before = i > 0;
    rest = rest.slice(i);
    // The fraction: its digits past what a uint64 holds are read and dropped.
    let fraction = 0n;
    let scale = 1;
    let after = false;
    if (rest[0] === '.') {
      let j = 1;
      let overflow = false;
      for (; digitsAt(rest, j, 1); j++) {
        if (overflow) continue;
        const next = fraction * 10n + BigInt(rest.charCodeAt(j) - 0x30);
        if (fraction > (LIMIT - 1n) / 10n || next > LIMIT) {
          overflow = true;
          continue;
        }
        fraction = next;
        scale *= 10;
      }
      after = j > 1;
      rest = rest.slice(j);
    }
    if (!before && !after) return invalid;
    let u = 0;
    while (u < rest.length && rest[u] !== '.' && !digitsAt(rest, u, 1)) u++;
    if (u === 0) return `time: missing unit in duration ${quote(text)}`;
    const name = rest.slice(0, u);
    rest = rest.slice(u);
    const unit = UNITS.get(name);
    if (unit === undefined) return `time: unknown unit ${quote(name)} in duration ${quote(text)}`;
    if (whole > LIMIT / unit) return invalid;
    let value = whole * unit;
    if (fraction > 0n) {
      // Go computes the fraction's nanoseconds in float64: uint64(float64(f) * (float64(unit) / scale)).
      value += BigInt(Math.trunc(Number(fraction) * (Number(unit) / scale)));
      if (value > LIMIT) return invalid;
    }
    total += value;
    if (total > LIMIT) return invalid;
  }
  if (!negative && total > LIMIT - 1n) return invalid;
  return undefined;
}
