import type { OptionSpec } from '../option-spec.js';

// Reinforcement learning, as upstream splits it: the inference surface on the chat route
// (DYN_ENABLE_RL), the workers' `rl` endpoint (--enable-rl), and the optional admin facade on a
// listener of its own (DYN_ENABLE_RL_ENDPOINTS, DYN_RL_PORT).
export const rlOptions = [
  {
    key: 'enableRl', flag: 'enable-rl', env: 'DYN_ENABLE_RL', type: 'bool',
    group: 'Reinforcement Learning', scope: 'both', built: true, default: false,
    help: 'Reinforcement learning. Frontend: unary chat answers carry prompt_token_ids and choices[].token_ids (return_token_ids on by default). Mocker: each worker also serves dyn://<namespace>.<component>.rl (describe, pause, resume, init_transport, update_weights); `worker openai` refuses it (an OpenAI-compatible server cannot be paused or given new weights the way upstream\'s in-process engine workers are)',
  },
  {
    key: 'enableRlEndpoints', env: 'DYN_ENABLE_RL_ENDPOINTS', type: 'bool',
    group: 'Reinforcement Learning', scope: 'frontend', built: true, default: false,
    help: 'Serve the RL admin facade (POST /v1/rl/pause, /v1/rl/resume, /v1/rl/init_transport, /v1/rl/update_weights) on its own listener (--rl-port), fanned out to every live `rl` worker endpoint of the namespace; guarded by the API keys when set',
  },
  {
    key: 'rlPort', flag: 'rl-port', env: 'DYN_RL_PORT', type: 'int', min: 0, max: 65535,
    group: 'Reinforcement Learning', scope: 'frontend', built: true, default: 8002,
    help: 'Port of the RL admin listener (with DYN_ENABLE_RL_ENDPOINTS; 0 picks a free one); its routes are not on the main HTTP port',
  },
  {
    key: 'rlComponent', env: 'DYN_RL_COMPONENT', envAliases: ['DYN_RL_COMPONENTS'], type: 'list', metavar: '<component,...>',
    group: 'Reinforcement Learning', scope: 'frontend', built: true, default: [],
    help: 'Only fan RL admin ops out to the `rl` endpoints of these components; unset: every live `rl` endpoint of the namespace',
  },
  {
    key: 'rlRequestTimeoutSecs', env: 'DYN_RL_REQUEST_TIMEOUT_SECS', type: 'float', min: 0, minExclusive: true, metavar: '<seconds>',
    group: 'Reinforcement Learning', scope: 'frontend', built: true, default: 30,
    help: 'How long an RL admin op waits for each worker; a worker that does not answer in time fails the op (502, its status in `workers`)',
  },
] as const satisfies readonly OptionSpec[];
