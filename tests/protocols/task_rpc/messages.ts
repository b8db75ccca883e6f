// task_rpc: the params and results of the test task-runner protocol.

/** A request id as JSON-RPC has it: `2` and `"2"` are different ids. */
type RequestId = string | integer;

/** A progress token, chosen by the caller. */
type ProgressToken = string | integer;

interface PingParams {
  /** @maxLength 100 */
  note?: string;
}

interface Pong {
  /** @maxLength 100 */
  note?: string;
}

interface ReadyParams {
  /** @maxLength 40 */
  client?: string;
}

/** Request metadata. */
interface Meta {
  progressToken?: ProgressToken;
}

interface RunParams {
  _meta?: Meta;
  /**
   * @minLength 1
   * @maxLength 40
   */
  name: string;
  /**
   * @minimum 1
   * @maximum 1000
   */
  steps: integer;
  /**
   * Milliseconds between steps.
   * @minimum 0
   * @maximum 60000
   */
  delay_ms?: integer;
  /** Ask the client to confirm before the first step. */
  confirm?: boolean;
}

interface RunResult {
  /** @minimum 0 */
  done: integer;
}

interface ConfirmParams {
  /** @maxLength 200 */
  question: string;
}

interface ConfirmResult {
  yes: boolean;
}

interface ProgressParams {
  progressToken: ProgressToken;
  /** @minimum 0 */
  progress: number;
  /** @minimum 0 */
  total?: number;
}

interface CancelledParams {
  requestId: RequestId;
  /** @maxLength 200 */
  reason?: string;
}
