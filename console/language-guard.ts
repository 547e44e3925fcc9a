/**
 * Imported first by main.tsx, before any library: uPlot runs `new Intl.NumberFormat(navigator.language)`
 * when its module loads, and a language Intl refuses (`en-US@posix`, the language of a browser on a
 * POSIX machine) made that throw, and no page rendered. Where the browser's language is not the one
 * the console formats in, libraries reading navigator.language see the console's.
 */
import { consoleLocale } from './format';

if (navigator.language !== consoleLocale) Object.defineProperty(navigator, 'language', { configurable: true, get: () => consoleLocale });
