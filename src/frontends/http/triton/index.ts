// Triton's HTTP/REST protocol (KServe v2) under /v2, over the KServe core; no option moves it.
export { TRITON_ADMIN_ROUTES, TRITON_OPEN_ROUTES, TRITON_PREFIX, TRITON_ROUTE, tritonErrorReply } from './triton-routes.js';
