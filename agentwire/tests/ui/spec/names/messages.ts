/** Named like the JSON-RPC emitter's request set. */
interface ClientRequest {
  self: string;
  type: string;
  match?: number;
  crate: boolean;
  super: Option;
  ref: Vec;
  async: Box[];
  $: MODULE;
  value: Err;
  ok: Ok;
}
interface ClientNotification {
  items: ServerRequest[];
  union: MODULE;
  when?: String | null;
}
interface ServerRequest { id: string }
interface Result { string: String; vec: Vec; status: Kind }
interface Option { box: Box }
interface Box { vec: Vec }
interface Vec { items: string[] }
type String = string;
/** @minLength 1 */
type Ok = string;
type Err = 'self' | 'Self' | 'ALL' | 'None' | '-';
interface Some { kind: 'some'; checker: Checker }
interface None { kind: 'none'; recorded?: Recorded }
type MODULE = Some | None;
interface Checker { bool: boolean }
interface Recorded { str: str; Self: string }
interface str { char: string }
interface Message { match: match; async: async; SCHEMA: SCHEMA; ROLES?: ROLES }
interface match { x: integer }
interface async { y: integer }
/** @maxLength 8 */
type SCHEMA = string;
type ROLES = string[];
interface decode_type { crate: Kind }
type Kind = 'machine' | 'decode_message';
/** Fields named like the builder methods: fields and methods never clash. */
interface Builders { new?: string; with_x: string; x?: string; default?: boolean }
