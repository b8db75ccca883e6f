// desk_relay: a help desk talks to a relay over a WebSocket; the relay posts each question
// to a backend and takes the backend's answers on a callback route.

/**
 * A ticket number.
 * @trim
 * @minLength 3
 * @maxLength 16
 * @pattern ^T-[0-9]+$
 */
type TicketId = string;

/** Desk frames, dispatched on `op`. */
type DeskFrame = JoinFrame | AskFrame;

interface JoinFrame {
  op: 'join';
  ticket: TicketId;
}

interface AskFrame {
  op: 'ask';
  /**
   * The question.
   * @minLength 1
   * @maxLength 2000
   */
  question: string;
}

/** Relay frames, dispatched on `op`. */
type RelayFrame = JoinedFrame | EntryFrame | RefusedFrame;

interface JoinedFrame {
  op: 'joined';
  ticket: TicketId;
  desk: string;
}

interface EntryFrame {
  op: 'entry';
  ticket: TicketId;
  author: 'desk' | 'backend' | 'relay';
  body: string;
  /** @format date-time */
  at: string;
}

interface RefusedFrame {
  op: 'refused';
  reason: 'bad_frame' | 'join_first' | 'bad_ticket' | 'no_ticket';
  /** @minLength 1 */
  detail: string;
}

interface OpenTicket {
  /** @minLength 1 */
  desk: string;
  ticket?: TicketId;
}

interface TicketOpened {
  ticket: TicketId;
  desk: string;
  /** @format date-time */
  opened: string;
}

interface Problem {
  reason: 'bad_request' | 'bad_ticket' | 'no_desk' | 'other_desk' | 'no_ticket' | 'blank' | 'too_big';
  /** @minLength 1 */
  detail: string;
}

interface Done {
  done: true;
}

interface Question {
  ticket: TicketId;
  desk: string;
  /** @format uri */
  reply_to: string;
  question: string;
  /** @format date-time */
  at: string;
}

/** A desk definition. */
interface DeskConfig {
  /** @minLength 1 */
  name: string;
  /** @format uri */
  backend?: string;
  /** @format uri */
  public_base?: string;
}
