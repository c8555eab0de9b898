export { isPoolProcess } from './child.js';
export { frontendCommand, serveCommand, type RunningCommand } from './commands.js';
export { processPlan, type ProcessPlan } from './plan.js';
