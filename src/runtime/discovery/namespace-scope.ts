// Which namespaces a frontend serves (reference/http.md §6.4 and §10.5).

export interface NamespaceScopeOptions {
  /** `--namespace`: exact match; unset, '' or 'dynamo' means every namespace. */
  namespace?: string;
  /** `--namespace-prefix`: P, P-*, or P* when P ends in '-'. Wins over `namespace`. */
  namespacePrefix?: string;
  /** `DYN_NAMESPACE_PREFIX_STRICT`: only P, P-legacy and P-<8 lowercase hex>. */
  strict?: boolean;
}

export type NamespaceScope = (namespace: string) => boolean;

const GLOBAL_NAMESPACES = new Set(['', 'dynamo']);

export function namespaceScope(opts: NamespaceScopeOptions): NamespaceScope {
  const prefix = opts.namespacePrefix;
  if (prefix) {
    if (opts.strict) {
      const strict = new RegExp(`^${escapeRegExp(prefix)}(?:-legacy|-[0-9a-f]{8})?$`);
      return (ns) => strict.test(ns);
    }
    if (prefix.endsWith('-')) return (ns) => ns.startsWith(prefix);
    return (ns) => ns === prefix || ns.startsWith(`${prefix}-`);
  }
  const exact = opts.namespace;
  if (exact === undefined || GLOBAL_NAMESPACES.has(exact)) return () => true;
  return (ns) => ns === exact;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
