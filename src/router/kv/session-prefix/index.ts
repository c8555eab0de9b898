// The session prefix index (`--enable-session-prefix-index`): sessions' block lineage per worker.
export {
  DEFAULT_MAX_SESSIONS,
  SessionPrefixIndex,
  type LineageAnswer,
  type SessionFrontier,
  type SessionPrefixView,
} from './session-prefix-index.js';
export type { ChainRejection, LogicalNode, NodeId } from './lineage-forest.js';
