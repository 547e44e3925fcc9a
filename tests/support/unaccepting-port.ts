import { spawn } from 'node:child_process';
import net from 'node:net';

/**
 * A port on 127.0.0.1 where a connection attempt hangs until the connect timeout: a socket that
 * listens with a full backlog and never accepts (Node cannot make one, hence python3).
 */
export async function unacceptingPort(): Promise<{ port: number; close: () => void }> {
  const listener = spawn('python3', [
    '-c',
    'import socket,time\ns=socket.socket()\ns.bind(("127.0.0.1",0))\ns.listen(0)\nprint(s.getsockname()[1],flush=True)\ntime.sleep(120)',
  ]);
  const port = await new Promise<number>((resolve) => listener.stdout.once('data', (data) => resolve(Number(String(data).trim()))));
  const fillers = [0, 1, 2].map(() => net.connect(port, '127.0.0.1').on('error', () => undefined));
  await new Promise((resolve) => setTimeout(resolve, 200));
  return {
    port,
    close: () => {
      for (const socket of fillers) socket.destroy();
      listener.kill();
    },
  };
}
