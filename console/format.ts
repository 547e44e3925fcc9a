/**
 * The one place the console formats dates and numbers for people: in the browser's language when
 * Intl takes it, in en-US when it does not. A browser on a POSIX machine reports `en-US@posix`
 * (or `C`, `POSIX`, nothing at all), which Intl refuses with a RangeError or knows no data for.
 */
const FALLBACK_LOCALE = 'en-US';

/** The first of `tags` that is a well-formed language tag Intl has data for; FALLBACK_LOCALE when none is. */
function usableLocale(tags: readonly (string | null | undefined)[]): string {
  for (const tag of tags) {
    if (!tag) continue;
    try {
      const [supported] = Intl.DateTimeFormat.supportedLocalesOf(tag);
      if (supported && Intl.NumberFormat.supportedLocalesOf(supported).length === 1) return supported;
    } catch {
      // Not a language tag (RangeError): try the next.
    }
  }
  return FALLBACK_LOCALE;
}

/** The language of this browser the console formats in. */
export const consoleLocale = usableLocale([...(navigator.languages ?? []), navigator.language]);

const dateTime = new Intl.DateTimeFormat(consoleLocale, { dateStyle: 'medium', timeStyle: 'medium' });
// Every digit a value has (a metric's value is shown as the API answers it), grouped as the language groups them.
const number = new Intl.NumberFormat(consoleLocale, { maximumFractionDigits: 20 });
const share = new Intl.NumberFormat(consoleLocale, { style: 'percent' });
const day = new Intl.DateTimeFormat(consoleLocale, { month: 'short', day: 'numeric', timeZone: 'UTC' });

/** A moment (an ISO timestamp of the API), in the browser's time zone. */
export const formatDateTime = (iso: string) => dateTime.format(new Date(iso));

/** A count or a measure. */
export const formatNumber = (value: number) => number.format(value);

/** A share (0.25: 25 %). */
export const formatPercent = (fraction: number) => share.format(fraction);

/** A UTC day given as seconds since the epoch (the chart's time axis): `Nov 26`. */
export const formatDay = (seconds: number) => day.format(new Date(seconds * 1000));
