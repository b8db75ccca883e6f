export const JSONRPC_VERSION = "2.0";
export const CALL = 'call' as const;

type ClientMessage = Call;

interface Envelope {
  jsonrpc: typeof JSONRPC_VERSION;
  /** @TJS-type integer */
  id: number;
  method: string;
  params?: unknown;
}

interface Meta {
  _meta?: object;
}

/** A call: the envelope's members, then the call's own. */
export interface Call extends Envelope, Meta {
  type: typeof CALL;
  /** Narrower than the envelope's, and required. */
  params: CallParams;
  /** @asType integer */
  sizes: number[];
  template?: Template;
  /** @format byte */
  data?: string;
  extra?: unknown;
  progressToken?: ProgressToken;
  alt?: string | number | boolean | null;
  stopReason?: 'endTurn' | 'maxTokens' | string;
}

/** Told apart by JSON type: `2` and `"2"` are different tokens. */
type ProgressToken = string | integer;

/** @format uri-template */
type Template = string;

interface CallParams {
  name: string;
  arguments?: { [key: string]: unknown };
}
