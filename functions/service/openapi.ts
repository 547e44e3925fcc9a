import { openApiDocument } from '#lib/api/openapi-document';
import { httpHandler } from '#lib/http/handler';
import { openApiEndpoint } from '#lib/service/endpoints';

let document: ReturnType<typeof openApiDocument> | undefined;

export const getOpenApiDocument = httpHandler(openApiEndpoint, async () => {
  document ??= openApiDocument();
  return { status: 200, body: document };
});
