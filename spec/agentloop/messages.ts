// agentloop: message types of the AgentLoop WebSocket protocol.
// JSON text frames, each `{id, type, payload}`. The client submits user turns and approval
// decisions; the server streams response items, loading state, approval requests,
// context statistics and errors.

// Spec note: the document's generic envelope `WSMessage` (`id`, `type`, `payload?: any`) is
// not a type of its own here; every kind below narrows it, and `id` is required and
// non-empty on all. The document recommends, but does not require, UUIDs (its test sample
// uses 'test-id'), so no uuid format is enforced.
//
// Spec note: the document's examples reuse frame ids (`...440002`, `...440003`, `...440007`,
// `...440008`, `...440011` and `...440012` each name two different frames) and item ids
// (`resp_abc123` for several messages); it never says ids are unique, so no rule requires it.

// ---------------------------------------------------------------------------------------
// Client -> Server
// ---------------------------------------------------------------------------------------

/** Every frame the client sends, dispatched on `type`. */
type ClientMessage =
  | UserInputMessage
  | ApprovalResponseMessage
  | GetContextInfoMessage
  | ManualCompactMessage;

/** Starts a turn: hands the user's input to the agent. */
interface UserInputMessage {
  /**
   * Frame id, unique per message.
   * @minLength 1
   */
  id: string;
  type: 'user_input';
  payload: {
    /** The input items of the turn, usually a single user message. */
    input: Array<ResponseInputItem>;
    /**
     * The previous response's id. Accepted but ignored by the stateless server.
     * @minLength 1
     */
    previousResponseId?: string;
  };
}

/** The user's decision on the pending approval_request. */
interface ApprovalResponseMessage {
  /**
   * Frame id, unique per message.
   * @minLength 1
   */
  id: string;
  type: 'approval_response';
  payload: {
    /** What the user decided. */
    review: ReviewDecision;
    /** The patch the decision applies to, when the request was a file change. */
    applyPatch?: ApplyPatchCommand;
    // Spec note: the interface declares `customDenyMessage?: string`, but the document's
    // example sends `"customDenyMessage": null`; both absent and null are accepted and kept
    // apart.
    /** Text handed to the agent as the reason for a denial. */
    customDenyMessage?: string | null;
    /** Free-form explanation attached to the decision. */
    explanation?: string;
  };
}

/** Asks how full the context window is; answered by context_info. */
interface GetContextInfoMessage {
  /**
   * Frame id, unique per message.
   * @minLength 1
   */
  id: string;
  type: 'get_context_info';
  /** Carries nothing; usually left out. */
  payload?: {};
}

/** Asks the server to compact the context now; answered by context_compacted. */
interface ManualCompactMessage {
  /**
   * Frame id, unique per message.
   * @minLength 1
   */
  id: string;
  type: 'manual_compact';
  /** Carries nothing; usually left out. */
  payload?: {};
}

/**
 * The user's answer to an approval request:
 * `yes` runs this command once; `no-exit` refuses and stops the whole run;
 * `no-continue` refuses but lets the agent go on; `always` runs it and auto-approves
 * similar commands later; `explain` asks the agent to explain the command first.
 */
type ReviewDecision = 'yes' | 'no-exit' | 'no-continue' | 'always' | 'explain';

// ---------------------------------------------------------------------------------------
// Server -> Client
// ---------------------------------------------------------------------------------------

/** Every frame the server sends, dispatched on `type`. */
type ServerMessage =
  | ResponseItemMessage
  | LoadingStateMessage
  | ApprovalRequestMessage
  | AgentFinishedMessage
  | ContextInfoMessage
  | ContextCompactedMessage
  | ErrorMessage;

/** One item of the agent's output, streamed as it is produced. */
interface ResponseItemMessage {
  /**
   * Frame id, unique per message.
   * @minLength 1
   */
  id: string;
  type: 'response_item';
  payload: ResponseItem;
}

/** The agent started (`true`) or stopped (`false`) working. */
interface LoadingStateMessage {
  /**
   * Frame id, unique per message.
   * @minLength 1
   */
  id: string;
  type: 'loading_state';
  payload: {
    /** Whether the agent is busy. */
    loading: boolean;
  };
}

/** A command needs the user's permission before it runs. */
interface ApprovalRequestMessage {
  /**
   * Frame id, unique per message.
   * @minLength 1
   */
  id: string;
  type: 'approval_request';
  payload: {
    // Spec note: an empty argv cannot be run or judged, so at least one element is
    // required (the document states no bound).
    /**
     * The command line, one argument per element (`apply_patch` for file changes).
     * @minItems 1
     */
    command: Array<string>;
    /** The patch to be applied, when the command is a file change. */
    applyPatch?: ApplyPatchCommand;
  };
}

/** The turn is over and the agent accepts new input. */
interface AgentFinishedMessage {
  /**
   * Frame id, unique per message.
   * @minLength 1
   */
  id: string;
  type: 'agent_finished';
  payload: {
    /**
     * Id of the model response that ended the turn.
     * @minLength 1
     */
    responseId: string;
  };
}

/** How much of the context window is in use. */
interface ContextInfoMessage {
  /**
   * Frame id, unique per message.
   * @minLength 1
   */
  id: string;
  type: 'context_info';
  // Spec note: the document types every statistic as `number`; the token and item counts
  // are whole numbers, so they are integers here; usagePercent stays fractional and has no
  // upper bound because a transcript can overflow the window.
  payload: {
    /**
     * Tokens currently in the context.
     * @minimum 0
     */
    tokenCount: integer;
    /**
     * tokenCount as a percentage of maxTokens.
     * @minimum 0
     */
    usagePercent: number;
    /**
     * Number of items in the transcript.
     * @minimum 0
     */
    transcriptLength: integer;
    /**
     * Size of the model's context window in tokens.
     * @minimum 1
     */
    maxTokens: integer;
    /**
     * Name of the context manager in use.
     * @minLength 1
     */
    strategy: string;
  };
}

/** The context was compacted, on request or automatically. */
interface ContextCompactedMessage {
  /**
   * Frame id, unique per message.
   * @minLength 1
   */
  id: string;
  type: 'context_compacted';
  // Spec note: the document types the counts as `number`; they are whole token counts and
  // become integers. reductionPercent stays fractional, at most 100; it has no lower bound
  // since a compaction that grows the context yields a negative value.
  payload: {
    /**
     * Tokens before compaction.
     * @minimum 0
     */
    oldTokenCount: integer;
    /**
     * Tokens after compaction.
     * @minimum 0
     */
    newTokenCount: integer;
    /**
     * How much smaller the context got, in percent of oldTokenCount.
     * @maximum 100
     */
    reductionPercent: number;
    /**
     * Name of the context manager that compacted.
     * @minLength 1
     */
    strategy: string;
  };
}

/** Something went wrong while handling a frame or running the agent. */
interface ErrorMessage {
  /**
   * Frame id, unique per message.
   * @minLength 1
   */
  id: string;
  type: 'error';
  payload: {
    /**
     * Human-readable description of the failure.
     * @minLength 1
     */
    message: string;
    /** Any extra data about the failure; may be `null`. */
    details?: any;
  };
}

// ---------------------------------------------------------------------------------------
// Items and shared types
// ---------------------------------------------------------------------------------------

// Spec note: ResponseInputItem is used but never defined by the document; its only
// example is a user message, so it is modelled as a message input item (type 'message',
// a role and text content parts). Other input item kinds are not described and not accepted.
/** One input item of a user turn. */
interface ResponseInputItem {
  type: 'message';
  /** Who speaks. */
  role: MessageRole;
  /** The text parts of the message. */
  content: Array<ContentItem>;
}

// Spec note: the roles are the ones the document's examples use (user input, assistant
// and system output items).
/** The speaker of a message item. */
type MessageRole = 'user' | 'assistant' | 'system';

// Spec note: every example, the assistant's output included, tags text parts
// `input_text`; `output_text`, the usual tag of model text, is accepted as well.
/** A text part of a message. */
interface ContentItem {
  /** Kind of text part. */
  type: 'input_text' | 'output_text';
  /** The text. */
  text: string;
}

// Spec note: ApplyPatchCommand is used but never defined; the example shows an object
// with a single `patch` string holding the patch text.
/** A file change expressed as a patch. */
interface ApplyPatchCommand {
  /** The patch text, from `*** Begin Patch` to `*** End Patch`. */
  patch: string;
}

// Spec note: ResponseItem is used but never defined; it is the union of the six item kinds
// the document's examples show, each built from its example's fields.
//
// Spec note: the document's streaming client snippet also reads a message item's `content`
// as a plain string (`else if (item.content) chunkText = item.content`), but every interface
// and example gives an array of text parts; the spec accepts only the array.
/** One output item of the agent, dispatched on `type`. */
type ResponseItem =
  | MessageItem
  | FunctionCallItem
  | FunctionCallOutputItem
  | LocalShellCallItem
  | LocalShellCallOutputItem
  | ReasoningItem;

/** A chat message: assistant text, or a system notice such as a network failure. */
interface MessageItem {
  /**
   * Item id; streamed chunks of one message share it.
   * @minLength 1
   */
  id: string;
  type: 'message';
  /** Who speaks. */
  role: MessageRole;
  /** The text parts of the message. */
  content: Array<ContentItem>;
}

/** The model calls a tool. */
interface FunctionCallItem {
  /**
   * Item id.
   * @minLength 1
   */
  id: string;
  type: 'function_call';
  /**
   * Correlates the call with its function_call_output.
   * @minLength 1
   */
  call_id: string;
  /**
   * Name of the tool, e.g. `shell`.
   * @minLength 1
   */
  name: string;
  /** The tool arguments as a JSON-encoded string. */
  arguments: string;
}

/** The result of a tool call. */
interface FunctionCallOutputItem {
  /**
   * Item id.
   * @minLength 1
   */
  id: string;
  type: 'function_call_output';
  /**
   * The call_id of the function_call this answers.
   * @minLength 1
   */
  call_id: string;
  /** The tool result as a JSON-encoded string (output text plus metadata). */
  output: string;
}

/** A shell command run on the local machine. */
interface LocalShellCallItem {
  /**
   * Item id.
   * @minLength 1
   */
  id: string;
  type: 'local_shell_call';
  /** What to run. */
  action: {
    // Spec note: at least one argument is required, as for approval_request.
    /**
     * The command line, one argument per element.
     * @minItems 1
     */
    command: Array<string>;
  };
  /** Progress of the call. */
  status: LocalShellCallStatus;
}

// Spec note: the document shows only `completed`; `in_progress` and `incomplete` complete
// the status set of the response API these items come from.
/** Progress of a local shell call. */
type LocalShellCallStatus = 'in_progress' | 'completed' | 'incomplete';

/** What a local shell call printed. */
interface LocalShellCallOutputItem {
  /**
   * Item id.
   * @minLength 1
   */
  id: string;
  type: 'local_shell_call_output';
  /** The result as a JSON-encoded string (output text plus metadata). */
  output: string;
}

/** The model's reasoning, for models that expose it. */
interface ReasoningItem {
  /**
   * Item id.
   * @minLength 1
   */
  id: string;
  type: 'reasoning';
  /** The reasoning text parts. */
  content: Array<ContentItem>;
  // Spec note: the example carries duration_ms, but not every model reports timing, so
  // the field is optional.
  /**
   * How long the model reasoned, in milliseconds.
   * @minimum 0
   */
  duration_ms?: integer;
}
