// external_agents: types of the external-agent connector.
// The web UI creates or attaches a session whose id the user chose, then talks to the
// agent server over a WebSocket (`/ws`). For an agent of type `external` the server does
// not run a model: it forwards each user message to the agent's inputUrl, and the external
// system later posts assistant text (raw Markdown) to the session's callback URL, which
// the server stores and broadcasts to the UI.

// ---------------------------------------------------------------------------------------
// Shared
// ---------------------------------------------------------------------------------------

// Spec note: the document recommends these rules ("non-empty, trimmed", "e.g. <= 128",
// "[A-Za-z0-9_-]"); the spec makes them binding, with 128 as the limit. The receiver trims
// the value first, so surrounding whitespace alone is not an error.
/**
 * A session id chosen by the user and shared by the UI, the agent server and the
 * external system; URL-safe so it can sit in a path segment.
 * @trim
 * @minLength 1
 * @maxLength 128
 * @pattern ^[A-Za-z0-9_-]+$
 */
type SessionId = string;

/** Failure body of every HTTP route of the agent server (status 4xx). */
interface ApiErrorResponse {
  ok: false;
  error: {
    /** Machine-readable reason. */
    code: ApiErrorCode;
    /**
     * Human-readable explanation.
     * @minLength 1
     */
    message: string;
  };
}

// Spec note: the document defines no error body; this one is the spec's design, with one
// code per rejection the document describes plus malformed-input and size cases.
/**
 * Why an HTTP request was refused:
 * `invalid_request` the body is not the expected JSON; `invalid_session_id` the id
 * breaks the SessionId rules; `agent_not_found` no agent has that agentId;
 * `session_agent_mismatch` the session exists for another agent; `session_not_found` no
 * live session has that id; `empty_message` the injected text is blank;
 * `payload_too_large` the body exceeds the server's limit.
 */
type ApiErrorCode =
  | 'invalid_request'
  | 'invalid_session_id'
  | 'agent_not_found'
  | 'session_agent_mismatch'
  | 'session_not_found'
  | 'empty_message'
  | 'payload_too_large';

// Spec note: the document sketches the success reply of inputUrl and of the callback as
// `{ ok: true }`; one type serves both. For the callback it also says no JSON body is
// required, so senders get this body but callers must not depend on it.
/** Success body without data. */
interface OkResponse {
  ok: true;
}

// ---------------------------------------------------------------------------------------
// HTTP: create or attach a session (web_ui -> agent_server)
// ---------------------------------------------------------------------------------------

/** Body of POST /api/plugins/sessions/operations/create. */
interface CreateSessionRequest {
  /**
   * The agent the session runs.
   * @minLength 1
   */
  agentId: string;
  // Spec note: the UI always sends an id for external agents; when it is left out the
  // server generates one, as it does for chat agents.
  /** The id to create or attach to. */
  sessionId?: SessionId;
}

// Spec note: the document shows only `{ ok: true, result: { sessionId, ... } }`; the other
// result fields are the spec's choice.
/** Success body of create (201 created, 200 attached or revived). */
interface CreateSessionResponse {
  ok: true;
  result: {
    /** The session's id (the requested one, or a generated one). */
    sessionId: SessionId;
    /**
     * The agent the session belongs to.
     * @minLength 1
     */
    agentId: string;
    /**
     * When the session was first created.
     * @format date-time
     */
    createdAt: string;
  };
}

// ---------------------------------------------------------------------------------------
// HTTP: forward user input (agent_server -> external_system, POST {external.inputUrl})
// ---------------------------------------------------------------------------------------

// Spec note: the document calls this payload a v1 draft; the spec takes its example's
// shape as binding.
/** What the agent server posts to the external agent's inputUrl for each user message. */
interface ExternalInputPayload {
  /** The session the message belongs to. */
  sessionId: SessionId;
  /**
   * The external agent addressed.
   * @minLength 1
   */
  agentId: string;
  /**
   * Where to post the reply: `{callbackBaseUrl}/external/sessions/{sessionId}/messages`.
   * @format uri
   */
  callbackUrl: string;
  /** The user's message. */
  message: {
    type: 'user';
    /** What the user wrote. */
    text: string;
    /**
     * When the message was stored.
     * @format date-time
     */
    createdAt: string;
  };
}

// ---------------------------------------------------------------------------------------
// Agent configuration
// ---------------------------------------------------------------------------------------

/**
 * An agent definition, dispatched on `type`; one without `type` is a chat agent (the
 * document's `type: "chat"` "(default; current behavior)").
 */
type AgentConfig = ChatAgentConfig | ExternalAgentConfig;

// Spec note: chat agents also carry prompts and tool scoping, which belong to the agent
// definition format, not to this protocol; only the identifying fields are specified.
/** An agent run in-process by a chat model provider. */
interface ChatAgentConfig {
  /**
   * Unique agent id.
   * @minLength 1
   */
  agentId: string;
  /**
   * Name shown in the UI.
   * @minLength 1
   */
  displayName: string;
  /** Short description shown in the UI. */
  description?: string;
  /**
   * Absent in configs written before external agents existed.
   * @default chat
   */
  type?: 'chat';
}

/** An agent that lives in another system and answers asynchronously. */
interface ExternalAgentConfig {
  /**
   * Unique agent id.
   * @minLength 1
   */
  agentId: string;
  /**
   * Name shown in the UI.
   * @minLength 1
   */
  displayName: string;
  /** Short description shown in the UI. */
  description?: string;
  type: 'external';
  /** Where input goes and where replies come back. */
  external: {
    /**
     * Endpoint that receives ExternalInputPayload posts.
     * @format uri
     */
    inputUrl: string;
    /**
     * Base of the callback URLs handed to the external system (this server's address).
     * @format uri
     */
    callbackBaseUrl: string;
  };
}

// ---------------------------------------------------------------------------------------
// WebSocket: web_ui -> agent_server
// ---------------------------------------------------------------------------------------

// Spec note: the document names the WebSocket messages (hello, user_message,
// session_ready) but never shows their wire form; the spec uses flat JSON objects with a
// `type` discriminator in both directions.
/** Every frame the web UI sends, dispatched on `type`. */
type WebUiMessage = HelloMessage | UserMessageMessage;

/** Binds the connection to a session; must come before any user_message. */
interface HelloMessage {
  type: 'hello';
  /** The session to attach to. */
  sessionId: SessionId;
}

/** A chat message typed by the user, for the session named in hello. */
interface UserMessageMessage {
  type: 'user_message';
  /**
   * What the user wrote.
   * @minLength 1
   */
  text: string;
}

// ---------------------------------------------------------------------------------------
// WebSocket: agent_server -> web_ui
// ---------------------------------------------------------------------------------------

/** Every frame the agent server sends, dispatched on `type`. */
type AgentServerMessage = SessionReadyMessage | ChatMessageBroadcast | ErrorMessage;

/** Answers hello: the connection is attached to the session. */
interface SessionReadyMessage {
  type: 'session_ready';
  /** The attached session. */
  sessionId: SessionId;
  /**
   * The agent the session runs.
   * @minLength 1
   */
  agentId: string;
}

// Spec note: the document says the server persists a user message "as normal", broadcasts an
// injected assistant reply ("persist assistant + broadcast over WS") and shows a forwarding
// failure as an error line, without defining the shape of those frames; the spec uses one
// `message` kind told apart by `role`. It does not say a stored user message is broadcast
// back, so a `user` echo is allowed but not required (machine.yaml).
/** A message appended to the session's conversation, sent to every attached client. */
interface ChatMessageBroadcast {
  type: 'message';
  /** The session the message belongs to. */
  sessionId: SessionId;
  /** `user` echo, `assistant` reply (Markdown), or `error` line (e.g. forwarding failed). */
  role: 'user' | 'assistant' | 'error';
  /** The message text; Markdown for assistant messages. */
  text: string;
  /**
   * When the message was stored.
   * @format date-time
   */
  createdAt: string;
}

// Spec note: the document defines no WebSocket error frame; this one answers frames the
// server refuses, so the UI learns why instead of being disconnected.
/** A frame from the UI was refused. */
interface ErrorMessage {
  type: 'error';
  /** Machine-readable reason. */
  code: WsErrorCode;
  /**
   * Human-readable explanation.
   * @minLength 1
   */
  message: string;
}

/**
 * Why a WebSocket frame was refused:
 * `invalid_message` not a known, well-formed frame; `hello_required` user_message before
 * hello; `invalid_session_id` the hello id breaks the SessionId rules;
 * `session_not_found` no live session has that id.
 */
type WsErrorCode = 'invalid_message' | 'hello_required' | 'invalid_session_id' | 'session_not_found';
