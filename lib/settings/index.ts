export { getSettings, loadSettings, settingsFilePath, SettingsError, ROOT_KEY, type Settings } from './load';
export { parseDuration } from './duration';
