export { registerTritonRoutes, TRITON_ADMIN_ROUTES, TRITON_OPEN_ROUTES, TRITON_PREFIX, tritonErrorReply, type TritonRouteOptions } from './triton-routes.js';
