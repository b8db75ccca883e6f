// chat_relay: message types of the downstream example's protocol.

/**
 * The id a client gives a question; every reply to it carries the same id.
 * @minLength 1
 * @maxLength 64
 * @pattern ^[a-z0-9_-]+$
 */
type QuestionId = string;

/** Every frame the client sends, dispatched on `type`. */
type ClientMessage = Ask;

/** Every frame the relay sends, dispatched on `type`. */
type RelayMessage = Chunk | Done;

/** A question for the relay. */
interface Ask {
  type: 'ask';
  id: QuestionId;
  /**
   * The question itself.
   * @minLength 1
   */
  text: string;
}

/** The next piece of an answer; the pieces in order make the whole answer. */
interface Chunk {
  type: 'chunk';
  id: QuestionId;
  text: string;
}

/** The answer is complete. */
interface Done {
  type: 'done';
  id: QuestionId;
  /**
   * How many chunks the answer had.
   * @minimum 0
   */
  chunks: integer;
}
