export { TRITON_ADMIN_ROUTES, TRITON_OPEN_ROUTES, TRITON_PREFIX, TRITON_ROUTE, tritonErrorReply } from './triton-routes.js';
