import { isTrellisError } from '@trelliscms/core';
import { isEngineError } from '../engines/port';
import { fromEngineError } from '../shared/from-engine-error';

/** A caller-facing message for an error of one record; unexpected errors are not shown. */
export function errorMessage(error: unknown): string {
  if (isTrellisError(error)) return error.message;
  if (isEngineError(error)) return fromEngineError(error).message;
  return 'an internal error occurred while writing this record';
}
