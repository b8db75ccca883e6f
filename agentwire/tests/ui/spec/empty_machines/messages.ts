type ClientMessage = Ping;
type ServerMessage = Pong;
interface Ping {
  type: 'ping';
  /** @minLength 1 */
  id: string;
}
interface Pong {
  type: 'pong';
  id: string;
}
