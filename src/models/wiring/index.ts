export { PolicyWiring, type EventPlaneStatus, type PolicyWiringDeps, type RouterStateFactory, type Wired, type WorkerComponent } from './policy-wiring.js';
export { LoadReports } from './load-reports.js';
export { RemoteIndexer, type RemoteIndexerOptions } from './remote-indexer.js';
export { ServedIndexers, type ServeEndpoint } from './served-indexers.js';
