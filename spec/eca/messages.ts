// ECA (Editor Code Assistant): params and result types of every JSON-RPC method.
//
// The JSON-RPC 2.0 envelope itself (`jsonrpc`, `id`, `method`, `params`, `result`, `error`) is
// not declared here; the method table in protocol.yaml says which type each method carries.
// Methods without params (`shutdown`, `exit`) and the null result of `shutdown` have no type.

// ---------------------------------------------------------------------------------------------
// Lifecycle: initialize
// ---------------------------------------------------------------------------------------------

/**
 * Params of the `initialize` request, the first message a client sends.
 */
interface InitializeParams {
    /**
     * Process id of the process that launched the server, or null when nothing launched it.
     * The server is expected to exit once that parent process is gone.
     */
    processId: integer | null;

    /**
     * Who the client is.
     */
    clientInfo?: {
        /**
         * Client name, as the client spells it.
         */
        name: string;

        /**
         * Client version, as the client spells it.
         */
        version?: string;
    };

    /**
     * Options the user configured for the server.
     */
    initializationOptions?: {
        /**
         * The chat behavior to start with.
         */
        chatBehavior?: ChatBehavior;
    };

    /**
     * What the editor or tool on the client side can do.
     */
    capabilities: ClientCapabilities;

    /**
     * The workspace folders open in the client at startup. A client without multi-project
     * support sends one folder: the project root.
     */
    workspaceFolders: WorkspaceFolder[];
}

/**
 * One workspace folder of the client.
 */
interface WorkspaceFolder {
    /**
     * URI of the folder.
     */
    uri: string;

    /**
     * Display name of the folder in the user interface.
     */
    name: string;
}

/**
 * Capabilities a client announces in `initialize`.
 */
interface ClientCapabilities {
    /**
     * Which code-assistant features the client can present.
     */
    codeAssistant?: {
        chat?: boolean;
        doc?: boolean;
        edit?: boolean;
        fix?: boolean;
    };
}

/**
 * How the server handles a chat: acting on the workspace, or only planning.
 */
type ChatBehavior = 'agent' | 'plan';

/**
 * Result of the `initialize` request.
 */
interface InitializeResponse {
    /**
     * Every model the server can use.
     */
    models: ChatModel[];

    /**
     * The model the server uses when a prompt names none.
     */
    chatDefaultModel: ChatModel;

    /**
     * Every chat behavior the server offers.
     */
    chatBehaviors: ChatBehavior[];

    /**
     * The behavior the server uses when a prompt names none.
     */
    chatDefaultBehavior: ChatBehavior;

    /**
     * Text to show in a new or cleared chat.
     */
    chatWelcomeMessage: string;
}

/**
 * Params of the `initialized` notification. Carries no fields.
 */
interface InitializedParams {}

// ---------------------------------------------------------------------------------------------
// Chat: prompt
// ---------------------------------------------------------------------------------------------

/**
 * Params of the `chat/prompt` request, which opens a chat or continues one.
 */
interface ChatPromptParams {
    /**
     * The chat to continue; without it the server opens a new chat.
     */
    chatId?: string;

    // Spec note: the document says requestId is "used to match with next async messages",
    // but no chat/contentReceived carries it (they name only chatId); the machines therefore
    // relate content to its prompt by chatId, and requestId is only checked to be present.
    /**
     * Identifier of this prompt, used to relate the notifications that follow to it.
     */
    requestId: string;

    /**
     * What the user wrote, in natural language.
     */
    message: string;

    /**
     * The model to answer with; models differ in abilities, style and speed.
     */
    model?: ChatModel;

    /**
     * The behavior the server should apply to this chat.
     */
    behavior?: ChatBehavior;

    /**
     * Workspace contexts to attach to the prompt, of any mix of kinds.
     */
    contexts?: ChatContext[];
}

/**
 * Name of an LLM model.
 */
type ChatModel = string;

/**
 * A piece of context attached to a prompt, tagged by `type`.
 */
type ChatContext = FileContext | DirectoryContext | WebContext | RepoMapContext | McpResourceContext;

/**
 * A file of the workspace.
 */
interface FileContext {
    type: 'file';

    /**
     * Path of the file.
     */
    path: string;

    /**
     * The lines to take from the file; without it the whole file is used.
     */
    linesRange?: LinesRange;
}

/**
 * A range of lines in a file.
 *
 * Spec note: the document types `start` and `end` as `number`; they are line numbers, so they
 * are declared `integer` here.
 */
interface LinesRange {
    /**
     * First line of the range.
     */
    start: integer;

    /**
     * Last line of the range.
     */
    end: integer;
}

/**
 * A directory of the workspace.
 */
interface DirectoryContext {
    type: 'directory';

    /**
     * Path of the directory.
     */
    path: string;
}

/**
 * Content fetched from the web.
 */
interface WebContext {
    type: 'web';

    /**
     * Address of the web content.
     */
    url: string;
}

/**
 * The repository map of the workspaces, which the server computes itself. Clients attach it by
 * default; users may drop it to keep the context small.
 */
interface RepoMapContext {
    type: 'repoMap';
}

/**
 * A resource offered by an MCP server.
 */
interface McpResourceContext {
    type: 'mcpResource';

    /**
     * URI of the resource, e.g. `file://foo/bar.clj`.
     */
    uri: string;

    /**
     * Name of the resource.
     */
    name: string;

    /**
     * What the resource is.
     */
    description: string;

    /**
     * Media type of the resource, e.g. `text/markdown`.
     */
    mimeType: string;

    /**
     * Name of the MCP server that offers the resource.
     */
    server: string;
}

/**
 * Result of the `chat/prompt` request.
 */
interface ChatPromptResponse {
    /**
     * The chat this prompt belongs to (newly opened or continued).
     */
    chatId: string;

    /**
     * The model that handles this prompt.
     */
    model: ChatModel;

    /**
     * Always `success` when the prompt was accepted.
     */
    status: 'success';
}

// ---------------------------------------------------------------------------------------------
// Chat: content received
// ---------------------------------------------------------------------------------------------

/**
 * Params of the `chat/contentReceived` notification: one new piece of chat content.
 */
interface ChatContentReceivedParams {
    /**
     * The chat the content belongs to.
     */
    chatId: string;

    /**
     * The content itself.
     */
    content: ChatContent;

    /**
     * Who the content is attributed to.
     */
    role: 'user' | 'system' | 'assistant';
}

/**
 * A piece of chat content, tagged by `type`.
 *
 * Spec note: the document defines `ToolCallRejected` (type `toolCallRejected`) next to the other
 * tool-call contents but leaves it out of this union; a rejected call is reported through this
 * same notification, so it is a member here.
 */
type ChatContent =
    | TextContent
    | URLContent
    | ProgressContent
    | UsageContent
    | ReasonStartedContent
    | ReasonTextContent
    | ReasonFinishedContent
    | ToolCallPrepareContent
    | ToolCallRunContent
    | ToolCalledContent
    | ToolCallRejected;

/**
 * Plain text written by the LLM.
 */
interface TextContent {
    type: 'text';

    /**
     * The text.
     */
    text: string;
}

/**
 * A progress report on the chat: what the server is busy with, or that it is done.
 */
interface ProgressContent {
    type: 'progress';

    /**
     * Whether the chat is still being processed or has finished.
     */
    state: 'running' | 'finished';

    /**
     * Text describing the current state, for display in the chat.
     */
    text: string;
}

/**
 * The LLM began a reasoning block.
 */
interface ReasonStartedContent {
    type: 'reasonStarted';

    /**
     * Identifier of the reasoning block.
     */
    id: string;
}

/**
 * A chunk of reasoning text.
 */
interface ReasonTextContent {
    type: 'reasonText';

    /**
     * Identifier of a reasoning block that was started before.
     */
    id: string;

    /**
     * The reasoning text.
     */
    text: string;
}

/**
 * The LLM ended a reasoning block.
 */
interface ReasonFinishedContent {
    type: 'reasonFinished';

    /**
     * Identifier of the reasoning block.
     */
    id: string;
}

/**
 * A link produced by the LLM.
 */
interface URLContent {
    type: 'url';

    /**
     * Title of the link.
     */
    title: string;

    /**
     * Target of the link.
     */
    url: string;
}

/**
 * Token and cost figures of the chat.
 *
 * Spec note: the document types the three token counts as `number`; they count tokens, so they
 * are declared `integer` (never negative) here.
 */
interface UsageContent {
    type: 'usage';

    /**
     * Tokens sent with the last prompt, all context added by the server included.
     * @minimum 0
     */
    messageInputTokens: integer;

    /**
     * Tokens the LLM produced for the last prompt.
     * @minimum 0
     */
    messageOutputTokens: integer;

    /**
     * All tokens the chat has used since it began, input and output together.
     * @minimum 0
     */
    sessionTokens: integer;

    /**
     * Cost of the last message, input and output together.
     */
    messageCost?: string;

    /**
     * Cost of the whole chat up to now.
     */
    sessionCost?: string;
}

/**
 * The LLM is getting a tool call ready; its arguments may still be incomplete.
 */
interface ToolCallPrepareContent {
    type: 'toolCallPrepare';

    /**
     * Where the tool comes from.
     */
    origin: ToolCallOrigin;

    /**
     * Identifier of the tool call.
     */
    id: string;

    /**
     * Name of the tool.
     */
    name: string;

    /**
     * The arguments as raw text, as far as they are known.
     */
    argumentsText: string;

    /**
     * True when the user must approve the call before it runs.
     */
    manualApproval: boolean;

    /**
     * Short text to show for the call, e.g. `Reading file "foo"...`.
     */
    summary?: string;

    /**
     * Extra information that lets a client present the call in a richer way.
     */
    details?: ToolCallDetails;
}

/**
 * The LLM asks for a tool call to run, with its final arguments.
 */
interface ToolCallRunContent {
    type: 'toolCallRun';

    /**
     * Where the tool comes from.
     */
    origin: ToolCallOrigin;

    /**
     * Identifier of the tool call.
     */
    id: string;

    /**
     * Name of the tool.
     */
    name: string;

    /**
     * The arguments, by name.
     */
    arguments: {[key: string]: string};

    /**
     * True when the user must approve the call before it runs.
     */
    manualApproval: boolean;

    /**
     * Short text to show for the call, e.g. `Reading file "foo"...`.
     */
    summary?: string;

    /**
     * Extra information that lets a client present the call in a richer way.
     */
    details?: ToolCallDetails;
}

/**
 * A tool call that has run, with its result.
 */
interface ToolCalledContent {
    type: 'toolCalled';

    /**
     * Where the tool comes from.
     */
    origin: ToolCallOrigin;

    /**
     * Identifier of the tool call.
     */
    id: string;

    /**
     * Name of the tool.
     */
    name: string;

    // Spec note: the document types the arguments of toolCallRun and toolCallRejected as a
    // map `{[key: string]: string}` but those of toolCalled as `string[]`; the spec keeps each
    // as written, since a client that reads one shape for all three would fail either way.
    /**
     * The arguments the tool ran with.
     */
    arguments: string[];

    /**
     * True when the call failed.
     */
    error: boolean;

    /**
     * What the tool produced.
     *
     * Spec note: the document writes this field as a one-element tuple `[{ type; content }]`;
     * a tool may produce any number of outputs, so it is read as a list of `ToolCallOutput`.
     */
    outputs: ToolCallOutput[];

    /**
     * Short text to show for the call, e.g. `Reading file "foo"...`.
     */
    summary?: string;

    /**
     * Extra information that lets a client present the call in a richer way.
     */
    details?: ToolCallDetails;
}

/**
 * One output of a tool call.
 *
 * Spec note: the document declares this shape inline in `ToolCalledContent.outputs`; it is
 * named here so it can be used as a list element.
 */
interface ToolCallOutput {
    /**
     * Kind of the output; text is the only kind.
     */
    type: 'text';

    /**
     * The output itself.
     */
    content: string;
}

/**
 * A tool call that did not run because it was rejected.
 */
interface ToolCallRejected {
    type: 'toolCallRejected';

    /**
     * Where the tool comes from.
     */
    origin: ToolCallOrigin;

    /**
     * Identifier of the tool call.
     */
    id: string;

    /**
     * Name of the tool.
     */
    name: string;

    /**
     * The arguments the call would have run with, by name.
     */
    arguments: {[key: string]: string};

    /**
     * Why the call was rejected; the user is the only reason.
     */
    reason: 'user';

    /**
     * Short text to show for the call, e.g. `Reading file "foo"...`.
     */
    summary?: string;

    /**
     * Extra information that lets a client present the call in a richer way.
     */
    details?: ToolCallDetails;
}

/**
 * Where a tool comes from: an MCP server or the server's own tools.
 */
type ToolCallOrigin = 'mcp' | 'native';

/**
 * Extra information about a tool call, tagged by `type`.
 *
 * Spec note: the document defines this union with a single member, `FileChangeDetails`; it is
 * kept a union (written with a leading `|`) so that further kinds of details can be added
 * without changing the field types that use it.
 */
type ToolCallDetails =
    | FileChangeDetails;

/**
 * The tool call changes a file.
 *
 * Spec note: the document types `linesAdded` and `linesRemoved` as `number`; they count lines,
 * so they are declared `integer` (never negative) here.
 */
interface FileChangeDetails {
    type: 'fileChange';

    /**
     * Path of the changed file.
     */
    path: string;

    /**
     * Diff of the file content.
     */
    diff: string;

    /**
     * Number of lines the change adds.
     * @minimum 0
     */
    linesAdded: integer;

    /**
     * Number of lines the change removes.
     * @minimum 0
     */
    linesRemoved: integer;
}

// ---------------------------------------------------------------------------------------------
// Chat: tool call approval
// ---------------------------------------------------------------------------------------------

/**
 * Params of the `chat/toolCallApprove` notification: run a tool call that waits for approval.
 */
interface ChatToolCallApproveParams {
    /**
     * The chat the tool call belongs to.
     */
    chatId: string;

    /**
     * The tool call to approve.
     */
    toolCallId: string;
}

/**
 * Params of the `chat/toolCallReject` notification: skip a tool call that waits for approval.
 */
interface ChatToolCallRejectParams {
    /**
     * The chat the tool call belongs to.
     */
    chatId: string;

    /**
     * The tool call to reject.
     */
    toolCallId: string;
}

// ---------------------------------------------------------------------------------------------
// Chat: queries
// ---------------------------------------------------------------------------------------------

/**
 * Params of the `chat/queryContext` request: which contexts could the user attach?
 */
interface ChatQueryContextParams {
    /**
     * The chat the query is made for.
     */
    chatId?: string;

    /**
     * Filter text; an empty string asks for every context.
     */
    query: string;

    /**
     * Contexts the user has already attached.
     */
    contexts: ChatContext[];
}

/**
 * Result of the `chat/queryContext` request.
 */
interface ChatQueryContextResponse {
    /**
     * The chat the query was made for.
     */
    chatId?: string;

    /**
     * Contexts the user can attach.
     */
    contexts: ChatContext[];
}

/**
 * Params of the `chat/queryCommands` request: which commands (MCP prompts, doctor, costs, ...)
 * could the user run? Clients usually offer them as `/<command>`.
 */
interface ChatQueryCommandsParams {
    /**
     * The chat the query is made for.
     */
    chatId?: string;

    /**
     * Filter text; an empty string asks for every command.
     */
    query: string;
}

/**
 * Result of the `chat/queryCommands` request.
 */
interface ChatQueryCommandsResponse {
    /**
     * The chat the query was made for.
     */
    chatId?: string;

    /**
     * Commands the user can run.
     */
    commands: ChatCommand[];
}

/**
 * A command the user can run from the chat.
 */
interface ChatCommand {
    /**
     * Name of the command.
     */
    name: string;

    /**
     * What the command does.
     */
    description: string;

    /**
     * Where the command comes from: an MCP prompt or the server itself.
     */
    type: 'mcp-prompt' | 'native';

    /**
     * The arguments the command takes.
     *
     * Spec note: the document writes this field as a one-element tuple
     * `[{ name; description?; required }]`; a command may take any number of arguments, so it
     * is read as a list of `ChatCommandArgument`.
     */
    arguments: ChatCommandArgument[];
}

/**
 * One argument of a chat command.
 *
 * Spec note: the document declares this shape inline in `ChatCommand.arguments`; it is named
 * here so it can be used as a list element.
 */
interface ChatCommandArgument {
    /**
     * Name of the argument.
     */
    name: string;

    /**
     * What the argument means.
     */
    description?: string;

    /**
     * True when the command cannot run without this argument.
     */
    required: boolean;
}

// ---------------------------------------------------------------------------------------------
// Chat: stop and delete
// ---------------------------------------------------------------------------------------------

/**
 * Params of the `chat/promptStop` notification: stop the prompt running in a chat, if any.
 */
interface ChatPromptStopParams {
    /**
     * The chat whose prompt should stop.
     */
    chatId: string;
}

/**
 * Params of the `chat/delete` request: forget a chat, its messages and its token and cost
 * figures.
 */
interface ChatDeleteParams {
    /**
     * The chat to delete.
     */
    chatId?: string;
}

/**
 * Result of the `chat/delete` request. Carries no fields; on receiving it the client clears
 * its chat view.
 */
interface ChatDeleteResponse {}

// ---------------------------------------------------------------------------------------------
// Configuration: tool servers
// ---------------------------------------------------------------------------------------------

/**
 * Params of the `tool/serverUpdated` notification: the state of one tool server changed.
 * Tagged by `type`.
 */
type ToolServerUpdatedParams = EcaServerUpdatedParams | MCPServerUpdatedParams;

/**
 * The server's own (built-in) tools.
 */
interface EcaServerUpdatedParams {
    type: 'native';

    /**
     * Always `ECA`.
     */
    name: 'ECA';

    /**
     * Always `running`: the built-in tools are always available.
     */
    status: 'running';

    /**
     * The built-in tools.
     */
    tools: ServerTool[];
}

/**
 * An MCP server configured in the server.
 */
interface MCPServerUpdatedParams {
    type: 'mcp';

    /**
     * Name of the MCP server.
     */
    name: string;

    /**
     * Command that launches the MCP server.
     */
    command: string;

    /**
     * Arguments passed to that command.
     */
    args: string[];

    /**
     * Current state of the MCP server.
     */
    status: 'running' | 'starting' | 'stopped' | 'failed' | 'disabled';

    /**
     * Tools the MCP server offers; absent when the server is disabled.
     */
    tools?: ServerTool[];
}

/**
 * One tool offered by a tool server.
 */
interface ServerTool {
    /**
     * Name of the tool.
     */
    name: string;

    /**
     * What the tool does.
     */
    description: string;

    /**
     * The tool's parameters, in whatever form the tool server describes them.
     */
    parameters: any;

    /**
     * True when the tool is switched off.
     */
    disabled?: boolean;
}

/**
 * Params of the `mcp/stopServer` notification: stop an MCP server process.
 */
interface MCPStopServerParams {
    /**
     * Name of the MCP server.
     */
    name: string;
}

/**
 * Params of the `mcp/startServer` notification: start a stopped MCP server process again.
 */
interface MCPStartServerParams {
    /**
     * Name of the MCP server.
     */
    name: string;
}

// ---------------------------------------------------------------------------------------------
// General
// ---------------------------------------------------------------------------------------------

/**
 * Params of the `$/showMessage` notification: a message the client should show to the user.
 */
interface ShowMessageParams {
    /**
     * Severity of the message.
     */
    type: MessageType;

    /**
     * The message text.
     */
    message: string;
}

/**
 * Severity of a message shown to the user.
 *
 * Spec note: the document declares this alias with `export`; `export` means nothing in a spec
 * file and is left out.
 */
type MessageType = 'error' | 'warning' | 'info';
