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
  /** State an earlier answer asked to be given back (sealed by the server). */
  state?: string;
}

interface CountResult {
  total: integer;
  /** State the client gives back when it retries the count. */
  state?: string;
}

interface ResetParams {
  /** Why the counter is reset. */
  reason?: string;
}
