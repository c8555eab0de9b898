// The RL admin facade: its listener and its routes.
export { RlAdminServer, RL_PATH_PREFIX, rlErrorReply, type RlAdminOptions } from './rl-admin-server.js';
