export { parseDuration } from './duration';
export { getSettings, loadSettings, type Settings, SettingsError } from './load';
