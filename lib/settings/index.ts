export { parseDuration } from './duration';
export { loadSettings, type Settings, SettingsError } from './load';
