export { registerAdminRoutes } from './admin-routes.js';
export { registerBusyThresholdRoute } from './busy-threshold-route.js';
