import { Kind, parse, type FragmentDefinitionNode, type SelectionSetNode, type ValueNode } from 'graphql';

/**
 * The rate-limit points GitHub charges for a GraphQL query, computed as its documentation says:
 * every connection (a field with a `first` or `last` argument) takes as many requests as its parent
 * connections can return nodes (the product of their `first`/`last`, 1 at the top), assuming every
 * page is full; the requests of all connections are summed, divided by 100 and rounded, and a query
 * costs at least 1 point.
 */
export function graphqlCost(query: string, variables: Record<string, unknown> = {}): number {
  return Math.max(1, Math.round(graphqlRequests(query, variables) / 100));
}

/** The sum of requests before the division: the figure GitHub's documentation walks through. */
export function graphqlRequests(query: string, variables: Record<string, unknown> = {}): number {
  const document = parse(query);
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const value = (node: ValueNode): number => {
    if (node.kind === Kind.INT) return Number(node.value);
    if (node.kind === Kind.VARIABLE) return Number(variables[node.name.value] ?? 0);
    return 0;
  };
  const walk = (set: SelectionSetNode | undefined, parents: number): number => {
    let requests = 0;
    for (const selection of set?.selections ?? []) {
      if (selection.kind === Kind.FRAGMENT_SPREAD)
        requests += walk(fragments.get(selection.name.value)?.selectionSet, parents);
      else if (selection.kind === Kind.INLINE_FRAGMENT) requests += walk(selection.selectionSet, parents);
      else {
        const page = selection.arguments?.find((a) => a.name.value === 'first' || a.name.value === 'last');
        if (page) requests += parents + walk(selection.selectionSet, parents * value(page.value));
        else requests += walk(selection.selectionSet, parents);
      }
    }
    return requests;
  };
  let requests = 0;
  for (const d of document.definitions) if (d.kind === Kind.OPERATION_DEFINITION) requests += walk(d.selectionSet, 1);
  return requests;
}
