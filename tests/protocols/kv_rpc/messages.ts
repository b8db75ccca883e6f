// kv_rpc: the params and results of the test key-value store protocol.

/**
 * A store handle, as `store/open` returned it.
 * @minLength 1
 * @pattern ^h[0-9]+$
 */
type Handle = string;

interface OpenParams {
  /**
   * The store's name.
   * @minLength 1
   * @maxLength 40
   */
  name: string;
}

interface OpenResult {
  handle: Handle;
}

interface PutParams {
  handle: Handle;
  /**
   * @minLength 1
   * @maxLength 64
   */
  key: string;
  value: Value;
}

interface PutResult {
  /**
   * The key's version after the write.
   * @minimum 1
   */
  version: integer;
}

interface ChangedParams {
  handle: Handle;
  key: string;
  value: Value;
  /** @minimum 1 */
  version: integer;
}

interface CloseParams {
  handle: Handle;
}

interface TouchParams {
  handle: Handle;
}

interface TouchResult {
  /** @minimum 0 */
  keys: integer;
}

/** A stored value, dispatched on `kind`. */
type Value = TextValue | NumberValue;

interface TextValue {
  kind: 'text';
  /** @maxLength 1000 */
  text: string;
}

interface NumberValue {
  kind: 'number';
  /**
   * @minimum -1000000
   * @maximum 1000000
   */
  number: number;
}
