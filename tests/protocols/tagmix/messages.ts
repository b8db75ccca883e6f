/** A version number; whole values stay whole on the wire. */
export type Version = number;

/**
 * A score, never negative.
 * @minimum 0
 */
export type Score = number;

/** A piece of a message, sent under several tags of `Update`. */
export interface Chunk {
  text: string;
  /** Which message the chunk belongs to; a reader may meet it before the tag. */
  messageId?: string | null;
  /** A note, optional and never null. */
  note?: string;
}

/** One update: a chunk of the user's or the agent's message, or a plan. */
export type Update =
  | (Chunk & { kind: "user" })
  | (Chunk & { kind: "agent" })
  | { kind: "plan"; steps: string[] };

/** A log that holds updates and, on its own, the last chunk. */
export interface Log {
  version: Version;
  updates: Update[];
  last?: Chunk;
  score?: Score;
  versions?: Version[];
  weights?: { [key: string]: number };
  samples?: (number | null)[];
}

/** What a short reply may carry; every member optional, so it reads almost any object. */
export interface BriefReply {
  id?: string;
  note?: string;
  /** @minLength 1 */
  mood?: string;
}

/** A reply that also lists commands; fewer members than `BriefReply`, so tried after it. */
export interface FullReply {
  id?: string;
  commands?: string[];
}

/** A reply of either shape: the reader must keep `commands` when the value has them. */
export type Reply = BriefReply | FullReply;
