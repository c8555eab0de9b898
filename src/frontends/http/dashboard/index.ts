export { registerDashboardRoutes } from './dashboard-routes.js';
