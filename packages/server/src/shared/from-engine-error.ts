import { TrellisError } from '@trelliscms/core';
import type { EngineError } from '../engines/port';

/** Maps an engine error the caller can act on to the HTTP error of docs/api-spec.md §7. */
export function fromEngineError(error: EngineError): TrellisError {
  switch (error.kind) {
    case 'not_found':
      return TrellisError.of('not_found', { resource: String(error.details.resource ?? 'Node') });
    case 'exists':
      return TrellisError.of('conflict', { detail: error.message });
    case 'unique_violation':
      return TrellisError.of('unique_violation', {
        field: String(error.details.prop ?? error.details.field ?? 'value'),
        label: String(error.details.label ?? 'item'),
      });
    case 'invalid_argument':
      return TrellisError.of('validation_failed', { detail: error.message });
    case 'timeout':
      return TrellisError.of('query_timeout', { timeoutMs: Number(error.details.timeoutMs ?? 0) });
    case 'unavailable':
      return TrellisError.of(
        'engine_error',
        { detail: error.message },
        {
          hint: 'Check that the graph engine is running and reachable; GET /api/health/detail shows its state.',
        },
      );
  }
}
