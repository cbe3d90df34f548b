import type { FastifyInstance } from 'fastify';

/** This server's own origin (`http://127.0.0.1:4000`; a wildcard address as loopback) once it listens, else null. */
export function ownOrigin(app: FastifyInstance): string | null {
  const address = app.server.address();
  if (!address || typeof address === 'string') return null;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '[::]' ? '[::1]' : host;
  return `http://${reachable}:${address.port}`;
}
