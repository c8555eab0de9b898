export { registerMessagesRoutes, type MessagesRouteOptions } from './messages-route.js';
