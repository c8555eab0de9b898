// The mocker command: simulated engines registered as workers (`dynamo-ts mocker`, and serve's own),
// their flags turned into engine options, and what they answer (random text, a fixed text, an echo,
// a script).
export { runMockers, siblings, startMocker, workerCardJson, type RunningMocker } from './mocker.js';
