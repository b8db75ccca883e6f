type ClientMessage = Ping;
interface Ping {
  type: 'ping';
  /** @pattern ^[a-z+$ */
  id: string;
}
