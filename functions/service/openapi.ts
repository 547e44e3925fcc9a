import { openApiDocument } from '#lib/api/openapi-document';
import { httpHandler } from '#lib/http/handler';
import { getOpenApiDocumentEndpoint } from '#lib/service/endpoints';

let document: ReturnType<typeof openApiDocument> | undefined;

export const getOpenApiDocument = httpHandler(getOpenApiDocumentEndpoint, async () => {
  document ??= openApiDocument();
  return { status: 200, body: document };
});
