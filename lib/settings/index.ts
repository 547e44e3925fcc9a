export { parseDuration } from './duration';
export { getSettings, loadSettings, resetSettings, type Settings, SettingsError } from './load';
