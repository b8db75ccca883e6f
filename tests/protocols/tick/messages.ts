// tick version 1: the params and results of the test counter protocol.

interface OpenParams {
  /** The version the client offers. */
  version: string;
}

interface OpenResult {
  /** The version the server speaks on this stream. */
  version: string;
}

interface CountParams {
  /**
   * @minimum 1
   * @maximum 10
   */
  step: integer;
}

interface CountResult {
  total: integer;
}

interface ResetParams {
  /** Why the counter is reset. */
  reason?: string;
}
