// The process's token tables live with model assembly; the mocker's models (mock-models.ts) share them from here.
export { sharedTokenTable } from '../models/index.js';
