type ClientMessage = Ping;
interface Ping {
  type: 'ping';
  /** @minLength 1 */
  id: string;
}
