type ClientMessage = Ping;
interface Ping {
  type: 'ping';
  id: Strng;
}
