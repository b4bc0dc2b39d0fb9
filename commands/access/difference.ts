/**
 * The access model's difference between two states of an organization (sdk/access-model `accessDiff`), worked out
 * only where it can be other than empty: access changes only for an identity whose bindings changed (one added or
 * removed) or are to a role whose capabilities changed, and only on the groups at and below such a binding. The
 * difference over everything else is empty, so it is not computed: an organization of 10,000 folders and as many
 * identities is 100 million (identity, group) pairs to compare, for the few a change can reach. The access plan
 * (./plan) and the changes between two reviews (./changes) both ask it.
 */
import {
  AccessModel,
  accessDiff,
  touchedBy,
  underAny,
  type AccessChange,
  type BindingFacts,
  type RoleFacts,
} from "../../sdk/access-model";

/** What an organization holds, as the access model takes it. */
export interface AccessState {
  roles: Iterable<RoleFacts>;
  bindings: Iterable<BindingFacts>;
}

/** The difference, and the models it was worked out on (each with the bindings of the identities it may touch). */
export interface AccessDifference {
  changes: AccessChange[];
  before: AccessModel;
  after: AccessModel;
}

/**
 * `accessDiff` of the two states on `groups`: the same changes, in the same order, computed only for the identities
 * and groups a change can reach.
 */
export function accessDifference(
  before: AccessState,
  after: AccessState,
  groups: Iterable<string>,
): AccessDifference {
  const facts = (s: AccessState) => ({ roles: [...s.roles], bindings: [...s.bindings] });
  const was = facts(before);
  const is = facts(after);
  const { positions, identities } = touchedBy(was, is);
  // Nobody else's access can change: the models hold the bindings of the identities a change reaches.
  const model = (s: ReturnType<typeof facts>) =>
    new AccessModel({
      roles: s.roles,
      bindings: s.bindings.filter((b) => identities.has(b.identity)),
    });
  const beforeModel = model(was);
  const afterModel = model(is);
  const reached = [...groups].filter((g) => underAny(g, positions));
  return { changes: accessDiff(beforeModel, afterModel, reached), before: beforeModel, after: afterModel };
}
