import { canonicalJson, sha256Hex } from '@trelliscms/core';
import type { GraphNode } from '../port';

/** A declared unique constraint: `prop` is unique among the nodes labelled `label`. */
export interface UniqueRule {
  label: string;
  prop: string;
}

/** One value a node holds under a unique rule; `k` is the key of its `TUnique` claim. */
export interface UniqueClaim extends UniqueRule {
  k: string;
  value: unknown;
}

/**
 * The claims a node makes under the rules: one per rule whose label it carries and whose
 * prop it sets (null and missing values claim nothing). Equal JSON values give the same key
 * whatever their key order.
 */
export function uniqueClaims(rules: readonly UniqueRule[], node: GraphNode): UniqueClaim[] {
  const claims: UniqueClaim[] = [];
  for (const rule of rules) {
    if (!node.labels.includes(rule.label)) continue;
    const value = node.props[rule.prop];
    if (value === undefined || value === null) continue;
    claims.push({ ...rule, value, k: sha256Hex(canonicalJson([rule.label, rule.prop, value])) });
  }
  return claims;
}
