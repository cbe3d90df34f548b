export { type ErrorCode, errorRegistry, statusOf } from './registry';
export { type ErrorBody, isTrellisError, TrellisError, type TrellisErrorOptions } from './trellis-error';
