import type { Endpoint, EndpointAnswer, EndpointInputs } from '#lib/http/endpoint';

/** A call's inputs, typed by its endpoint's contract, and headers. */
export type EndpointCallOptions<E extends Endpoint> = EndpointInputs<E> & { readonly headers?: Record<string, string> };

/**
 * What calls the API's endpoints by their contracts, as a given caller: cgp's HTTP client
 * (lib/cli/api-client.ts), or the handlers in process (lib/mcp/in-process-caller.ts). A 2xx answer
 * comes back read by the contract; any other throws an error naming its problem.
 */
export interface EndpointCaller {
  call<E extends Endpoint>(endpoint: E, options: EndpointCallOptions<E>): Promise<{ status: number; body: EndpointAnswer<E> }>;
}
