// A re-sent request never goes back to an instance it already lost: the candidates lose the
// excluded ones. Runs after the busy gate, which starts the candidates afresh from the live set.
import { UnavailableError } from '../../protocols/index.js';
import type { RouteStep } from '../route.js';

export function skipExcluded<Req, Out>(): RouteStep<Req, Out> {
  return (decision) => {
    const excluded = decision.excluded;
    if (decision.target || !excluded || excluded.size === 0) return;
    decision.candidates = decision.candidates.filter((i) => !excluded.has(i.id));
    if (decision.candidates.length === 0) throw new UnavailableError('no instance left that this request has not already lost');
  };
}
