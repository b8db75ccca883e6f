// room_chat: the message types of the test chat-room protocol.

/**
 * A room name: lowercase letters, digits and dashes.
 * @minLength 1
 * @maxLength 32
 * @pattern ^[a-z0-9-]+$
 */
type RoomId = string;

/** Every frame a member sends, dispatched on `type`. */
type MemberMessage = JoinMessage | SayMessage | LeaveMessage;

/** Enters a room. */
interface JoinMessage {
  type: 'join';
  room: RoomId;
  /**
   * The name shown to others.
   * @minLength 1
   * @maxLength 20
   */
  nick: string;
}

/** Says something in a joined room. */
interface SayMessage {
  type: 'say';
  room: RoomId;
  content: Content;
}

/** Leaves a room. */
interface LeaveMessage {
  type: 'leave';
  room: RoomId;
}

/** What was said, dispatched on `kind`. */
type Content = TextContent | DiceContent;

/** Plain text. */
interface TextContent {
  kind: 'text';
  /**
   * @minLength 1
   * @maxLength 200
   */
  text: string;
}

/** A die roll. */
interface DiceContent {
  kind: 'dice';
  /**
   * @minimum 1
   * @maximum 6
   */
  value: integer;
}

/** Every frame the hub sends, dispatched on `type`. */
type HubMessage = JoinedMessage | HeardMessage | ErrorMessage;

/** A join went through. */
interface JoinedMessage {
  type: 'joined';
  room: RoomId;
  /**
   * Members in the room, the new one included.
   * @minimum 1
   */
  members: integer;
}

/** Someone said something in a room. */
interface HeardMessage {
  type: 'heard';
  room: RoomId;
  nick: string;
  content: Content;
}

/** A refused frame. */
interface ErrorMessage {
  type: 'error';
  payload: {
    /**
     * What went wrong.
     * @minLength 1
     */
    message: string;
    /** The failing rule and where, as data. */
    details?: any;
  };
}
