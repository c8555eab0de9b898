// The RL admin fan-out over discovery and the request plane (upstream's `dynamo-rl` SDK).
export { RlClient, type RlClientOptions } from './rl-client.js';
export { rlMembership, membershipEpoch, type RlMembershipScope, type RlMembershipSnapshot } from './rl-membership.js';
