/**
 * Test helpers for packages that test against the SDK (`@trelliscms/sdk/test-support`): a real
 * HTTP server on 127.0.0.1, port 0, answering canned JSON per `METHOD /path`.
 */
export {
  type CannedAnswer,
  createTestServer,
  type Handler,
  type SeenRequest,
  sequence,
  type TestServer,
} from './create-test-server';
