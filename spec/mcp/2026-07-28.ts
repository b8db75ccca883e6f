// MCP revision 2026-07-28 as types: every name, member, type and value as the revision's
// published schema states them, written out here (see docs/protocols/mcp.md, "Versions", for
// how the types are proven against the TypeScript SDK's own schemas at test time). What
// changed from 2025-11-25: no `initialize` and no session; each request carries its version,
// client and capabilities in `_meta`; server-to-client requests became input-required
// results; `subscriptions/listen`; `resultType` on every result; caching hints on list and
// read results; tasks left the core schema.

// Any JSON value, object and array.
export type JSONValue =
  string | number | boolean | null | JSONObject | JSONArray;
export type JSONObject = { [key: string]: JSONValue };
export type JSONArray = JSONValue[];

// The JSON-RPC frame: requests, notifications, results and errors. The version constant is
// the revision these types describe.
export type JSONRPCMessage =
  JSONRPCRequest | JSONRPCNotification | JSONRPCResponse;
export const LATEST_PROTOCOL_VERSION = "2026-07-28";
export const JSONRPC_VERSION = "2.0";

// `_meta` objects. A request's carries what 2025-11-25 exchanged once in `initialize`: the
// protocol version, the client's identity and capabilities (and its wanted log level), on
// every request.
export type MetaObject = Record<string, unknown>;
export interface RequestMetaObject extends MetaObject {
  progressToken?: ProgressToken;
  "io.modelcontextprotocol/protocolVersion": string;
  "io.modelcontextprotocol/clientInfo"?: Implementation;
  "io.modelcontextprotocol/clientCapabilities": ClientCapabilities;
  "io.modelcontextprotocol/logLevel"?: LoggingLevel;
}
export interface NotificationMetaObject extends MetaObject {
  "io.modelcontextprotocol/subscriptionId"?: RequestId;
}
export interface ResultMetaObject extends MetaObject {
  "io.modelcontextprotocol/serverInfo"?: Implementation;
}
export type ProgressToken = string | number;
export type Cursor = string;
export interface RequestParams {
  _meta: RequestMetaObject;
}
export interface Request {
  method: string;
  params?: { [key: string]: any };
}
export interface NotificationParams {
  _meta?: NotificationMetaObject;
}
export interface Notification {
  method: string;
  params?: { [key: string]: any };
}

// Every result says whether it is final (`complete`) or asks the client for input first
// (`input_required`); other values are reserved for later revisions.
export type ResultType = "complete" | "input_required" | string;
export interface Result {
  _meta?: ResultMetaObject;
  resultType: ResultType;
  [key: string]: unknown;
}
export interface Error {
  code: number;
  message: string;
  data?: unknown;
}
export type RequestId = string | number;
export interface JSONRPCRequest extends Request {
  jsonrpc: typeof JSONRPC_VERSION;
  id: RequestId;
}
export interface JSONRPCNotification extends Notification {
  jsonrpc: typeof JSONRPC_VERSION;
}
export interface JSONRPCResultResponse {
  jsonrpc: typeof JSONRPC_VERSION;
  id: RequestId;
  result: Result;
}
export interface JSONRPCErrorResponse {
  jsonrpc: typeof JSONRPC_VERSION;
  id?: RequestId;
  error: Error;
}
export type JSONRPCResponse = JSONRPCResultResponse | JSONRPCErrorResponse;

// Error codes: JSON-RPC's own, then the three this revision adds for a request whose headers
// disagree with its body, whose version the server does not speak, or that lacks a capability.
export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;
export interface ParseError extends Error {
  code: typeof PARSE_ERROR;
}
export interface InvalidRequestError extends Error {
  code: typeof INVALID_REQUEST;
}
export interface MethodNotFoundError extends Error {
  code: typeof METHOD_NOT_FOUND;
}
export interface InvalidParamsError extends Error {
  code: typeof INVALID_PARAMS;
}
export interface InternalError extends Error {
  code: typeof INTERNAL_ERROR;
}
export const HEADER_MISMATCH = -32020;
export const MISSING_REQUIRED_CLIENT_CAPABILITY = -32021;
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;
export interface HeaderMismatchError extends Omit<
  JSONRPCErrorResponse,
  "error"
> {
  error: Error & {
    code: typeof HEADER_MISMATCH;
  };
}
export interface UnsupportedProtocolVersionError extends Omit<
  JSONRPCErrorResponse,
  "error"
> {
  error: Error & {
    code: typeof UNSUPPORTED_PROTOCOL_VERSION;
    data: {
      supported: string[];
      requested: string;
    };
  };
}
export interface MissingRequiredClientCapabilityError extends Omit<
  JSONRPCErrorResponse,
  "error"
> {
  error: Error & {
    code: typeof MISSING_REQUIRED_CLIENT_CAPABILITY;
    data: {
      requiredCapabilities: ClientCapabilities;
    };
  };
}

// Input-required results: instead of sending requests of its own, a server answers with the
// requests it needs answered (sampling, roots, elicitation) and an opaque state; the client
// retries the original request with the answers under the same keys and the state unchanged.
export type EmptyResult = Result;
export type InputRequest =
  CreateMessageRequest | ListRootsRequest | ElicitRequest;
export type InputResponse =
  CreateMessageResult | ListRootsResult | ElicitResult;
export interface InputRequests {
  [key: string]: InputRequest;
}
export interface InputResponses {
  [key: string]: InputResponse;
}
export interface InputRequiredResult extends Result {
  inputRequests?: InputRequests;
  requestState?: string;
}
export interface InputResponseRequestParams extends RequestParams {
  inputResponses?: InputResponses;
  requestState?: string;
}

// Cancellation and discovery: `server/discover` replaces `initialize` and may be sent at any
// time.
export interface CancelledNotificationParams extends NotificationParams {
  requestId: RequestId;
  reason?: string;
}
export interface CancelledNotification extends JSONRPCNotification {
  method: "notifications/cancelled";
  params: CancelledNotificationParams;
}
export interface DiscoverRequest extends JSONRPCRequest {
  method: "server/discover";
  params: RequestParams;
}
export interface DiscoverResult extends CacheableResult {
  supportedVersions: string[];
  capabilities: ServerCapabilities;
  instructions?: string;
}
export interface DiscoverResultResponse extends JSONRPCResultResponse {
  result: DiscoverResult;
}

// Capabilities (the client's are sent with every request) and who each side is.
export interface ClientCapabilities {
  experimental?: { [key: string]: JSONObject };
  roots?: {};
  sampling?: {
    context?: JSONObject;
    tools?: JSONObject;
  };
  elicitation?: {
    form?: JSONObject;
    url?: JSONObject;
  };
  extensions?: { [key: string]: JSONObject };
}
export interface ServerCapabilities {
  experimental?: { [key: string]: JSONObject };
  logging?: JSONObject;
  completions?: JSONObject;
  prompts?: {
    listChanged?: boolean;
  };
  resources?: {
    subscribe?: boolean;
    listChanged?: boolean;
  };
  tools?: {
    listChanged?: boolean;
  };
  extensions?: { [key: string]: JSONObject };
}
export interface Icon {
  /** @format uri */
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: "light" | "dark";
}
export interface Icons {
  icons?: Icon[];
}
export interface BaseMetadata {
  name: string;
  title?: string;
}
export interface Implementation extends BaseMetadata, Icons {
  version: string;
  description?: string;
  /** @format uri */
  websiteUrl?: string;
}

// Progress, pagination, and the caching hints of list and read results.
export interface ProgressNotificationParams extends NotificationParams {
  progressToken: ProgressToken;
  /** @TJS-type number */
  progress: number;
  /** @TJS-type number */
  total?: number;
  message?: string;
}
export interface ProgressNotification extends JSONRPCNotification {
  method: "notifications/progress";
  params: ProgressNotificationParams;
}
export interface PaginatedRequestParams extends RequestParams {
  cursor?: Cursor;
}
export interface PaginatedRequest extends JSONRPCRequest {
  params: PaginatedRequestParams;
}
export interface PaginatedResult extends Result {
  nextCursor?: Cursor;
}
export interface CacheableResult extends Result {
  /** @minimum 0 */
  ttlMs: number;
  cacheScope: "public" | "private";
}

// Resources.
export interface ListResourcesRequest extends PaginatedRequest {
  method: "resources/list";
}
export interface ListResourcesResult extends PaginatedResult, CacheableResult {
  resources: Resource[];
}
export interface ListResourcesResultResponse extends JSONRPCResultResponse {
  result: ListResourcesResult;
}
export interface ListResourceTemplatesRequest extends PaginatedRequest {
  method: "resources/templates/list";
}
export interface ListResourceTemplatesResult
  extends PaginatedResult, CacheableResult {
  resourceTemplates: ResourceTemplate[];
}
export interface ListResourceTemplatesResultResponse extends JSONRPCResultResponse {
  result: ListResourceTemplatesResult;
}
export interface ResourceRequestParams extends RequestParams {
  /** @format uri */
  uri: string;
}
export interface ReadResourceRequestParams
  extends ResourceRequestParams, InputResponseRequestParams {}
export interface ReadResourceRequest extends JSONRPCRequest {
  method: "resources/read";
  params: ReadResourceRequestParams;
}
export interface ReadResourceResult extends CacheableResult {
  contents: (TextResourceContents | BlobResourceContents)[];
}
export interface ReadResourceResultResponse extends JSONRPCResultResponse {
  result: ReadResourceResult | InputRequiredResult;
}
export interface ResourceListChangedNotification extends JSONRPCNotification {
  method: "notifications/resources/list_changed";
  params?: NotificationParams;
}

// Subscriptions: one long-lived `subscriptions/listen` request carries the list-changed and
// resource-updated notifications the client asked for; the server acknowledges what it honours.
export interface SubscriptionFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
}
export interface SubscriptionsListenRequestParams extends RequestParams {
  notifications: SubscriptionFilter;
}
export interface SubscriptionsListenRequest extends JSONRPCRequest {
  method: "subscriptions/listen";
  params: SubscriptionsListenRequestParams;
}
export interface SubscriptionsListenResultMetaObject extends ResultMetaObject {
  "io.modelcontextprotocol/subscriptionId": RequestId;
}
export interface SubscriptionsListenResult extends Result {
  _meta: SubscriptionsListenResultMetaObject;
}
export interface SubscriptionsListenResultResponse extends JSONRPCResultResponse {
  result: SubscriptionsListenResult;
}
export interface SubscriptionsAcknowledgedNotificationParams extends NotificationParams {
  notifications: SubscriptionFilter;
}
export interface SubscriptionsAcknowledgedNotification extends JSONRPCNotification {
  method: "notifications/subscriptions/acknowledged";
  params: SubscriptionsAcknowledgedNotificationParams;
}
export interface ResourceUpdatedNotificationParams extends NotificationParams {
  /** @format uri */
  uri: string;
}
export interface ResourceUpdatedNotification extends JSONRPCNotification {
  method: "notifications/resources/updated";
  params: ResourceUpdatedNotificationParams;
}
export interface Resource extends BaseMetadata, Icons {
  /** @format uri */
  uri: string;
  description?: string;
  mimeType?: string;
  annotations?: Annotations;
  size?: number;
  _meta?: MetaObject;
}
export interface ResourceTemplate extends BaseMetadata, Icons {
  /** @format uri-template */
  uriTemplate: string;
  description?: string;
  mimeType?: string;
  annotations?: Annotations;
  _meta?: MetaObject;
}
export interface ResourceContents {
  /** @format uri */
  uri: string;
  mimeType?: string;
  _meta?: MetaObject;
}
export interface TextResourceContents extends ResourceContents {
  text: string;
}
export interface BlobResourceContents extends ResourceContents {
  /** @format byte */
  blob: string;
}

// Prompts.
export interface ListPromptsRequest extends PaginatedRequest {
  method: "prompts/list";
}
export interface ListPromptsResult extends PaginatedResult, CacheableResult {
  prompts: Prompt[];
}
export interface ListPromptsResultResponse extends JSONRPCResultResponse {
  result: ListPromptsResult;
}
export interface GetPromptRequestParams extends InputResponseRequestParams {
  name: string;
  arguments?: { [key: string]: string };
}
export interface GetPromptRequest extends JSONRPCRequest {
  method: "prompts/get";
  params: GetPromptRequestParams;
}
export interface GetPromptResult extends Result {
  description?: string;
  messages: PromptMessage[];
}
export interface GetPromptResultResponse extends JSONRPCResultResponse {
  result: GetPromptResult | InputRequiredResult;
}
export interface Prompt extends BaseMetadata, Icons {
  description?: string;
  arguments?: PromptArgument[];
  _meta?: MetaObject;
}
export interface PromptArgument extends BaseMetadata {
  description?: string;
  required?: boolean;
}
export type Role = "user" | "assistant";
export interface PromptMessage {
  role: Role;
  content: ContentBlock;
}
export interface ResourceLink extends Resource {
  type: "resource_link";
}
export interface EmbeddedResource {
  type: "resource";
  resource: TextResourceContents | BlobResourceContents;
  annotations?: Annotations;
  _meta?: MetaObject;
}
export interface PromptListChangedNotification extends JSONRPCNotification {
  method: "notifications/prompts/list_changed";
  params?: NotificationParams;
}

// Tools.
export interface ListToolsRequest extends PaginatedRequest {
  method: "tools/list";
}
export interface ListToolsResult extends PaginatedResult, CacheableResult {
  tools: Tool[];
}
export interface ListToolsResultResponse extends JSONRPCResultResponse {
  result: ListToolsResult;
}
export interface CallToolResult extends Result {
  content: ContentBlock[];
  structuredContent?: unknown;
  isError?: boolean;
}
export interface CallToolResultResponse extends JSONRPCResultResponse {
  result: CallToolResult | InputRequiredResult;
}
export interface CallToolRequestParams extends InputResponseRequestParams {
  name: string;
  arguments?: { [key: string]: unknown };
}
export interface CallToolRequest extends JSONRPCRequest {
  method: "tools/call";
  params: CallToolRequestParams;
}
export interface ToolListChangedNotification extends JSONRPCNotification {
  method: "notifications/tools/list_changed";
  params?: NotificationParams;
}
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}
export interface Tool extends BaseMetadata, Icons {
  description?: string;
  inputSchema: { $schema?: string; type: "object"; [key: string]: unknown };
  outputSchema?: { $schema?: string; [key: string]: unknown };
  annotations?: ToolAnnotations;
  _meta?: MetaObject;
}

// Logging (the level is asked per request in `_meta`).
export interface LoggingMessageNotificationParams extends NotificationParams {
  level: LoggingLevel;
  logger?: string;
  data: unknown;
}
export interface LoggingMessageNotification extends JSONRPCNotification {
  method: "notifications/message";
  params: LoggingMessageNotificationParams;
}
export type LoggingLevel =
  | "debug"
  | "info"
  | "notice"
  | "warning"
  | "error"
  | "critical"
  | "alert"
  | "emergency";

// Sampling, asked of the client only inside an input-required result (no JSON-RPC frame of
// its own).
export interface CreateMessageRequestParams {
  messages: SamplingMessage[];
  modelPreferences?: ModelPreferences;
  systemPrompt?: string;
  includeContext?: "none" | "thisServer" | "allServers";
  /** @TJS-type number */
  temperature?: number;
  maxTokens: number;
  stopSequences?: string[];
  metadata?: JSONObject;
  tools?: Tool[];
  toolChoice?: ToolChoice;
}
export interface ToolChoice {
  mode?: "auto" | "required" | "none";
}
export interface CreateMessageRequest {
  method: "sampling/createMessage";
  params: CreateMessageRequestParams;
}
export interface CreateMessageResult extends SamplingMessage {
  model: string;
  stopReason?: "endTurn" | "stopSequence" | "maxTokens" | "toolUse" | string;
}

// Content blocks.
export interface SamplingMessage {
  role: Role;
  content: SamplingMessageContentBlock | SamplingMessageContentBlock[];
  _meta?: MetaObject;
}
export type SamplingMessageContentBlock =
  | TextContent
  | ImageContent
  | AudioContent
  | ToolUseContent
  | ToolResultContent;
export interface Annotations {
  audience?: Role[];
  /**
   * @TJS-type number
   * @minimum 0
   * @maximum 1
   */
  priority?: number;
  lastModified?: string;
}
export type ContentBlock =
  TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource;
export interface TextContent {
  type: "text";
  text: string;
  annotations?: Annotations;
  _meta?: MetaObject;
}
export interface ImageContent {
  type: "image";
  /** @format byte */
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: MetaObject;
}
export interface AudioContent {
  type: "audio";
  /** @format byte */
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: MetaObject;
}
export interface ToolUseContent {
  type: "tool_use";
  id: string;
  name: string;
  input: { [key: string]: unknown };
  _meta?: MetaObject;
}
export interface ToolResultContent {
  type: "tool_result";
  toolUseId: string;
  content: ContentBlock[];
  structuredContent?: unknown;
  isError?: boolean;
  _meta?: MetaObject;
}
export interface ModelPreferences {
  hints?: ModelHint[];
  /**
   * @TJS-type number
   * @minimum 0
   * @maximum 1
   */
  costPriority?: number;
  /**
   * @TJS-type number
   * @minimum 0
   * @maximum 1
   */
  speedPriority?: number;
  /**
   * @TJS-type number
   * @minimum 0
   * @maximum 1
   */
  intelligencePriority?: number;
}
export interface ModelHint {
  name?: string;
}

// Argument completion.
export interface CompleteRequestParams extends RequestParams {
  ref: PromptReference | ResourceTemplateReference;
  argument: {
    name: string;
    value: string;
  };
  context?: {
    arguments?: { [key: string]: string };
  };
}
export interface CompleteRequest extends JSONRPCRequest {
  method: "completion/complete";
  params: CompleteRequestParams;
}
export interface CompleteResult extends Result {
  completion: {
    /** @maxItems 100 */
    values: string[];
    total?: number;
    hasMore?: boolean;
  };
}
export interface CompleteResultResponse extends JSONRPCResultResponse {
  result: CompleteResult;
}
export interface ResourceTemplateReference {
  type: "ref/resource";
  /** @format uri-template */
  uri: string;
}
export interface PromptReference extends BaseMetadata {
  type: "ref/prompt";
}

// Roots and elicitation, likewise asked only inside an input-required result.
export interface ListRootsRequest {
  method: "roots/list";
  params?: {
    _meta?: MetaObject;
  };
}
export interface ListRootsResult {
  roots: Root[];
}
export interface Root {
  /** @format uri */
  uri: string;
  name?: string;
  _meta?: MetaObject;
}
export interface ElicitRequestFormParams {
  mode?: "form";
  message: string;
  requestedSchema: {
    $schema?: string;
    type: "object";
    properties: {
      [key: string]: PrimitiveSchemaDefinition;
    };
    required?: string[];
  };
}
export interface ElicitRequestURLParams {
  mode: "url";
  message: string;
  /** @format uri */
  url: string;
}
export type ElicitRequestParams =
  ElicitRequestFormParams | ElicitRequestURLParams;
export interface ElicitRequest {
  method: "elicitation/create";
  params: ElicitRequestParams;
}
export type PrimitiveSchemaDefinition =
  StringSchema | NumberSchema | BooleanSchema | EnumSchema;
export interface StringSchema {
  type: "string";
  title?: string;
  description?: string;
  minLength?: number;
  maxLength?: number;
  format?: "email" | "uri" | "date" | "date-time";
  default?: string;
}
export interface NumberSchema {
  type: "number" | "integer";
  title?: string;
  description?: string;
  /** @TJS-type number */
  minimum?: number;
  /** @TJS-type number */
  maximum?: number;
  /** @TJS-type number */
  default?: number;
}
export interface BooleanSchema {
  type: "boolean";
  title?: string;
  description?: string;
  default?: boolean;
}
export interface UntitledSingleSelectEnumSchema {
  type: "string";
  title?: string;
  description?: string;
  enum: string[];
  default?: string;
}
export interface TitledSingleSelectEnumSchema {
  type: "string";
  title?: string;
  description?: string;
  oneOf: Array<{
    const: string;
    title: string;
  }>;
  default?: string;
}
export type SingleSelectEnumSchema =
  UntitledSingleSelectEnumSchema | TitledSingleSelectEnumSchema;
export interface UntitledMultiSelectEnumSchema {
  type: "array";
  title?: string;
  description?: string;
  minItems?: number;
  maxItems?: number;
  items: {
    type: "string";
    enum: string[];
  };
  default?: string[];
}
export interface TitledMultiSelectEnumSchema {
  type: "array";
  title?: string;
  description?: string;
  minItems?: number;
  maxItems?: number;
  items: {
    anyOf: Array<{
      const: string;
      title: string;
    }>;
  };
  default?: string[];
}
export type MultiSelectEnumSchema =
  UntitledMultiSelectEnumSchema | TitledMultiSelectEnumSchema;
export interface LegacyTitledEnumSchema {
  type: "string";
  title?: string;
  description?: string;
  enum: string[];
  enumNames?: string[];
  default?: string;
}
export type EnumSchema =
  SingleSelectEnumSchema | MultiSelectEnumSchema | LegacyTitledEnumSchema;
export interface ElicitResult {
  action: "accept" | "decline" | "cancel";
  content?: { [key: string]: string | number | boolean | string[] };
}

// What each side sends.
export type ClientRequest =
  | DiscoverRequest
  | CompleteRequest
  | GetPromptRequest
  | ListPromptsRequest
  | ListResourcesRequest
  | ListResourceTemplatesRequest
  | ReadResourceRequest
  | SubscriptionsListenRequest
  | CallToolRequest
  | ListToolsRequest;
export type ClientNotification = CancelledNotification;
export type ClientResult = EmptyResult;
export type ServerNotification =
  | CancelledNotification
  | ProgressNotification
  | LoggingMessageNotification
  | ResourceUpdatedNotification
  | ResourceListChangedNotification
  | ToolListChangedNotification
  | PromptListChangedNotification
  | SubscriptionsAcknowledgedNotification;
export type ServerResult =
  | EmptyResult
  | DiscoverResult
  | CompleteResult
  | GetPromptResult
  | ListPromptsResult
  | ListResourceTemplatesResult
  | ListResourcesResult
  | ReadResourceResult
  | SubscriptionsListenResult
  | CallToolResult
  | ListToolsResult
  | InputRequiredResult;
