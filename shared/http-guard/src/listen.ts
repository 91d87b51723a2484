/**
 * Listening on loopback, checked twice: the host asked for must be a loopback address
 * (refused before anything is bound), and so must the address actually bound — a name
 * like `localhost` goes through the system resolver, which an edited hosts file can point
 * at a LAN address. Each service checks its setting first with its own message; the first
 * check here is the backstop for a caller that did not.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isLoopbackBindAddress } from './loopback.js';

/** `refusal` builds the service's own configuration error (exit status 2 in the binaries). */
export async function listenOnLoopback(server: Server, host: string, port: number, refusal: (message: string) => Error): Promise<AddressInfo> {
  if (!isLoopbackBindAddress(host)) throw refusal(`refusing to listen on ${host}: loopback only (127.0.0.0/8, ::1, localhost)`);
  const address = await new Promise<AddressInfo>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port, exclusive: true }, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
  if (!isLoopbackBindAddress(address.address)) {
    await new Promise((r) => server.close(r));
    throw refusal(`refusing to serve: ${host} resolved to non-loopback address ${address.address}`);
  }
  return address;
}
