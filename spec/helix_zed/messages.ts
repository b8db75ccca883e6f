// helix_zed: message types of the Helix <-> Zed external-agent protocol.
// One WebSocket, JSON text frames. Helix (the external system) sends `{type, data}`;
// Zed replies with `{session_id, event_type, data}`. Zed keeps no session mapping: Helix
// stores session_id -> acp_thread_id and sends the thread id back on every follow-up.

/**
 * Where Helix's interaction (one user request plus the AI reply) stands. It is `waiting`
 * until message_completed arrives for it, then `complete`; `error` when the turn failed.
 */
type InteractionState = 'waiting' | 'complete' | 'error';

// ---------------------------------------------------------------------------------------
// Helix -> Zed
// ---------------------------------------------------------------------------------------

// Spec note: the document's closing summary speaks of two incoming message types, but it
// defines only chat_message; the helix -> zed union therefore has exactly one member.
/** Every frame Helix sends to Zed, dispatched on `type`. */
type HelixMessage = ChatMessage;

/** A user turn for Zed's agent: the first message of a session or a follow-up. */
interface ChatMessage {
  type: 'chat_message';
  data: ChatMessageData;
}

interface ChatMessageData {
  /**
   * Helix's id for the session (e.g. `ses_01k6...`).
   * @minLength 1
   */
  helix_session_id: string;
  // Spec note: the key is always sent; `null` means "no thread yet" and makes Zed create a
  // context. The document calls the id a UUID but only shows elided values, so the spec
  // enforces non-empty rather than the UUID format.
  /**
   * The Zed context (ACP thread) bound to the session, or `null` on the session's first
   * message.
   * @minLength 1
   */
  acp_thread_id: string | null;
  /** The text the user typed. */
  message: string;
  /**
   * Helix's id for this request; Zed echoes it in message_completed.
   * @minLength 1
   */
  request_id: string;
}

// ---------------------------------------------------------------------------------------
// Zed -> Helix
// ---------------------------------------------------------------------------------------

/** Every frame Zed sends to Helix, dispatched on `event_type`. */
type ZedEvent = ContextCreatedEvent | MessageAddedEvent | MessageCompletedEvent;

/** Zed made a new context for a session; sent once, only in reply to a first message. */
interface ContextCreatedEvent {
  /**
   * The Helix session id, echoed.
   * @minLength 1
   */
  session_id: string;
  event_type: 'context_created';
  data: ContextCreatedData;
}

interface ContextCreatedData {
  /**
   * Id of the context Zed just created; Helix stores it for follow-ups.
   * @minLength 1
   */
  acp_thread_id: string;
  /**
   * The Helix session id, echoed a second time inside the payload.
   * @minLength 1
   */
  helix_session_id: string;
}

/**
 * A snapshot of the assistant reply being streamed. Updates of one reply share a
 * `message_id` and each `content` is the whole text so far, so Helix replaces, not appends.
 */
interface MessageAddedEvent {
  /**
   * The Helix session id, echoed.
   * @minLength 1
   */
  session_id: string;
  event_type: 'message_added';
  data: MessageAddedData;
}

interface MessageAddedData {
  /**
   * The Zed context the reply belongs to.
   * @minLength 1
   */
  acp_thread_id: string;
  /**
   * Id of the assistant message; constant across its streaming updates.
   * @minLength 1
   */
  message_id: string;
  /** Always the assistant: Zed streams only the AI side. */
  role: 'assistant';
  /** The reply text accumulated so far. */
  content: string;
  // Spec note: the document only says "Unix timestamp"; its examples are whole seconds,
  // so the field is an integer number of seconds since the epoch.
  /**
   * When this update was produced, in Unix seconds.
   * @minimum 0
   */
  timestamp: integer;
}

/** The assistant finished the turn; Helix marks the waiting interaction complete. */
interface MessageCompletedEvent {
  /**
   * The Helix session id, echoed.
   * @minLength 1
   */
  session_id: string;
  event_type: 'message_completed';
  data: MessageCompletedData;
}

interface MessageCompletedData {
  /**
   * The Zed context the reply belongs to.
   * @minLength 1
   */
  acp_thread_id: string;
  /**
   * Id of the finished assistant message (the one the message_added updates used).
   * @minLength 1
   */
  message_id: string;
  /**
   * The request_id of the chat_message this turn answered.
   * @minLength 1
   */
  request_id: string;
}
