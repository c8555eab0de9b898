export {
  PushRouter,
  RoundRobinPolicy,
  RandomPolicy,
  DirectPolicy,
  createRouterPolicy,
  type PushRouterMode,
  type RouterPolicy,
  type WorkerInstance,
} from './push-router.js';
