// The one way the runtime chooses a pluggable part by name (discovery backend, request plane, event
// plane): a table with a row per name. A row imports its part's module when called, so a part's
// packages load only when it is chosen; the runtime calls it at creation, so a missing package
// fails the start, never a later request. Typed by the name list, the table makes the compiler
// refuse a name without a row and a row without a name.

/** Makes one part from what it needs. */
export type PartMaker<Deps, Part> = (deps: Deps) => Part;

export type PartTable<Name extends string, Deps, Part> = { readonly [N in Name]: () => Promise<PartMaker<Deps, Part>> };
