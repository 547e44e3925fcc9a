export { parseDuration } from './duration';
export { getSettings, loadSettings, ROOT_KEY, type Settings, SettingsError, settingsFilePath } from './load';
