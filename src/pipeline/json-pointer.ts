// JSON pointers into a schema document, as `$ref` fragments write them (`#/$defs/Place`): the tool
// parsers and the structural-tag builders both follow local references.

/** The value the pointer (percent-encoded, as in a URI fragment, without the `#`) names in `root`; undefined: none. */
export function jsonPointerTarget(root: unknown, fragment: string): unknown {
  let pointer: string;
  try {
    pointer = decodeURIComponent(fragment);
  } catch {
    return undefined;
  }
  if (pointer === '') return root;
  if (!pointer.startsWith('/')) return undefined;
  let node: unknown = root;
  for (const raw of pointer.slice(1).split('/')) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    // Own members only: a name like `constructor` is not a member of every object.
    if (Array.isArray(node)) node = /^(0|[1-9]\d*)$/.test(token) ? node[Number(token)] : undefined;
    else if (typeof node === 'object' && node !== null) node = Object.hasOwn(node, token) ? (node as Record<string, unknown>)[token] : undefined;
    else return undefined;
    if (node === undefined) return undefined;
  }
  return node;
}
