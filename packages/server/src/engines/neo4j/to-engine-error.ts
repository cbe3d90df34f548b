import { Neo4jError } from 'neo4j-driver';
import { EngineError, isEngineError } from '../port';

/**
 * Maps driver failures the caller can act on to EngineErrors: an unreachable server is
 * `unavailable`, a transaction past its time limit is `timeout`. Anything else (a Cypher bug,
 * a constraint the engine should have checked first) is returned unchanged, as an engine failure.
 */
export function toEngineError(error: unknown): unknown {
  if (isEngineError(error) || !(error instanceof Neo4jError)) return error;
  if (error.code === 'ServiceUnavailable' || error.code === 'SessionExpired') {
    return new EngineError('unavailable', `Neo4j is unreachable: ${error.message}`);
  }
  if (error.code === 'Neo.ClientError.Statement.UnsupportedAdministrationCommand') {
    return new EngineError('unavailable', `This Neo4j server cannot manage databases: ${error.message}`, {
      hint: 'One database per graph needs Neo4j Enterprise; on Community set NEO4J_EDITION=community.',
    });
  }
  if (/TransactionTimedOut|TransactionTimedOutClientConfiguration/.test(error.code)) {
    return new EngineError('timeout', `The Neo4j transaction ran past its time limit: ${error.message}`);
  }
  return error;
}
