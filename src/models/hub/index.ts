export { fetchModelFiles, MODEL_FILES, type FetchedModel, type FetchOptions } from './fetch-model-files.js';
export { DEFAULT_HUB_ENDPOINT, hubSettings, type HubSettings, type HubSettingsInput } from './settings.js';
export { terminalProgress, type DownloadProgress, type ProgressStream } from './progress.js';
