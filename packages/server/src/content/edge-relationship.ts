import type { RelationshipDefinition, StoredContentType } from '@trelliscms/core';
import type { GraphEdge, GraphReader } from '../engines/port';
import { typeOfId } from './item-record';
import { findType } from './type-repository';

/** The content types an edge request reads, each once per request (null: no such type). */
export type TypeLookup = (name: string) => Promise<StoredContentType | null>;

/** A {@link TypeLookup} reading from `reader`, remembering each answer for the request. */
export function createTypeLookup(reader: GraphReader): TypeLookup {
  const types = new Map<string, Promise<StoredContentType | null>>();
  return (name) => {
    let type = types.get(name);
    if (!type) {
      type = findType(reader, name);
      types.set(name, type);
    }
    return type;
  };
}

function describeRelationships(type: StoredContentType): string {
  if (type.relationships.length === 0) return 'it declares no relationships';
  const declared = type.relationships.map(
    (relationship) => `${relationship.edgeLabel} → ${relationship.target} (\`${relationship.name}\`)`,
  );
  return `it declares ${declared.join(', ')}`;
}

/**
 * The relationship of the source item's type that `edge` is: the one whose `edgeLabel` is the
 * edge's label and whose `target` is the type of `edge.to`. An error saying why when there is
 * none: the source type does not exist, does not declare the label, or declares it towards
 * another type.
 */
export async function relationshipOfEdge(
  edge: GraphEdge,
  types: TypeLookup,
): Promise<{ relationship: RelationshipDefinition; source: StoredContentType } | { error: string }> {
  return relationshipInType(edge, await types(typeOfId(edge.from)));
}

/**
 * {@link relationshipOfEdge} with the source item's type already read (`source`: the type
 * named by `edge.from`, null when there is none), for callers checking many edges at once.
 */
export function relationshipInType(
  edge: GraphEdge,
  source: StoredContentType | null,
): { relationship: RelationshipDefinition; source: StoredContentType } | { error: string } {
  const sourceName = typeOfId(edge.from);
  if (!source) {
    return { error: `${edge.from}: \`${sourceName}\` is not a content type of this site` };
  }
  const labelled = source.relationships.filter((relationship) => relationship.edgeLabel === edge.type);
  if (labelled.length === 0) {
    return {
      error: `${edge.type} is not a relationship of type ${source.name} (${describeRelationships(source)}); declare it on the type first`,
    };
  }
  const targetName = typeOfId(edge.to);
  const relationship = labelled.find((candidate) => candidate.target === targetName);
  if (!relationship) {
    const targets = labelled.map((candidate) => candidate.target).join(' or ');
    return {
      error: `${edge.type} edges of a ${source.name} point at ${targets} items; ${edge.to} is a ${targetName}`,
    };
  }
  return { relationship, source };
}
