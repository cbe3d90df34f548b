export { canonicalJson } from './canonical-json';
export { contentHash, sha256Hex } from './content-hash';
