// tick version 2: a step of up to 100 and a label; `tick/stop` instead of `tick/reset`.

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
   * @maximum 100
   */
  step: integer;
  /** @maxLength 20 */
  label?: string;
}

interface CountResult {
  total: integer;
}

interface StopParams {
  /** The total the client expects. */
  total?: integer;
}

interface StopResult {
  total: integer;
}
