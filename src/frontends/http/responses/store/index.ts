// Where the Responses API keeps stored responses: the interface, and the stores by name.
export { DEFAULT_RESPONSE_STORE, STORABLE_ID, type ResponseStore, type ResponseStoreOptions, type ResponseStoreSettings, type StoredEvent, type StoredResponse } from './response-store.js';
export { openResponseStore, RESPONSE_STORES } from './stores.js';
