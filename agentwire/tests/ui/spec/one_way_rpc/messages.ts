// one_way_rpc: the params and result of its one method.

interface EchoParams {
  /** @minLength 1 */
  text: string;
}

interface EchoResult {
  text: string;
}
