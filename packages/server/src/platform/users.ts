import { randomUUID } from 'node:crypto';
import { PlatformRole, StarterKit } from '@trelliscms/core';
import type { Graph, GraphNode, GraphWriter } from '../engines/port';
import type { Clock } from '../shared/clock';

/** A user's default starter kit: any kit but `none`. */
export type Persona = Exclude<StarterKit, 'none'>;

/** The persona a stored or claimed value names, or null. */
export function toPersona(value: unknown): Persona | null {
  const parsed = StarterKit.safeParse(value);
  return parsed.success && parsed.data !== 'none' ? parsed.data : null;
}

/** Label of platform users in the platform graph. */
export const USER_LABEL = 'User';

/** A platform user: a person (mapped from an ID token's `sub`) or the owner of API keys. */
export interface PlatformUser {
  /** `user:<id>` */
  id: string;
  name: string | null;
  email: string | null;
  /** The OpenID Connect subject this user signs in as; null for key-only users. */
  sub: string | null;
  /** `owner`/`admin` on the whole platform, else null (site roles apply). */
  platformRole: PlatformRole | null;
  /** Which starter kit their new sites get by default. */
  persona: Persona | null;
  createdAt: string;
}

function toUser(node: GraphNode): PlatformUser {
  const props = node.props;
  return {
    id: node.id,
    name: typeof props.name === 'string' ? props.name : null,
    email: typeof props.email === 'string' ? props.email : null,
    sub: typeof props.sub === 'string' ? props.sub : null,
    platformRole: PlatformRole.safeParse(props.platformRole).data ?? null,
    persona: toPersona(props.persona),
    createdAt: String(props.createdAt ?? ''),
  };
}

/** The user with this id, or null. */
export async function getUser(graph: Graph | GraphWriter, id: string): Promise<PlatformUser | null> {
  const node = await graph.getNode(id);
  return node?.labels.includes(USER_LABEL) ? toUser(node) : null;
}

/** The user signing in as this OpenID Connect subject, or null. */
export async function findUserBySub(graph: Graph, sub: string): Promise<PlatformUser | null> {
  const page = await graph.findNodes({
    label: USER_LABEL,
    where: [{ prop: 'sub', op: 'eq', value: sub }],
    limit: 1,
  });
  const node = page.nodes[0];
  return node ? toUser(node) : null;
}

/**
 * Creates a user inside a transaction and appends `user.create` to the audit chain.
 * `sub` is unique among users (the constraint is declared by {@link ensureUserConstraints}).
 */
export async function createUser(
  tx: GraphWriter,
  input: Omit<PlatformUser, 'id' | 'createdAt'> & { id?: string; actor: string; clock: Clock },
): Promise<PlatformUser> {
  const { actor, clock, ...user } = input;
  const node = await tx.createNode({
    id: user.id ?? `user:${randomUUID()}`,
    labels: [USER_LABEL],
    props: {
      name: user.name,
      email: user.email,
      // absent rather than null, so the unique constraint on `sub` never sees key-only users
      sub: user.sub ?? undefined,
      platformRole: user.platformRole,
      persona: user.persona,
      createdAt: clock.now().toISOString(),
    },
  });
  await tx.appendAudit({
    actor,
    action: 'user.create',
    target: node.id,
    data: { platformRole: user.platformRole },
  });
  return toUser(node);
}

/**
 * The user for a verified ID token's subject, created on first sign-in with no site access
 * (an admin grants it). Concurrent first sign-ins of one subject yield one user.
 */
export async function userForSubject(
  graph: Graph,
  claims: { sub: string; email: string | null; name: string | null; persona?: PlatformUser['persona'] },
  clock: Clock,
): Promise<PlatformUser> {
  const existing = await findUserBySub(graph, claims.sub);
  if (existing) return existing;
  try {
    return await graph.transaction((tx) =>
      createUser(tx, {
        name: claims.name,
        email: claims.email,
        sub: claims.sub,
        platformRole: null,
        persona: claims.persona ?? null,
        actor: 'system',
        clock,
      }),
    );
  } catch (error) {
    const raced = await findUserBySub(graph, claims.sub);
    if (raced) return raced;
    throw error;
  }
}

/** Declares the platform graph's unique constraints on users (idempotent). */
export async function ensureUserConstraints(graph: Graph): Promise<void> {
  await graph.ensureUnique(USER_LABEL, 'sub');
}
