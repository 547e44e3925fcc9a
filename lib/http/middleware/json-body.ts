import type middy from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';

import { jsonNestsDeeperThan, MAX_JSON_DEPTH } from '../json-nesting';
import { BadRequest, ContentTooLarge, UnsupportedMediaType } from '../problems';

const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json\s*(;.*)?$/i;

/** Largest accepted request body (API Gateway's own limit is 10 MB). */
const MAX_BODY_BYTES = 1_048_576;

/**
 * Parses a JSON request body into `event.body`: 415 for another content type, 400 for a missing
 * or malformed body or one nested deeper than MAX_JSON_DEPTH, 413 past MAX_BODY_BYTES.
 * (middy's own parser answers 415 for malformed JSON.)
 */
export function jsonBody(): middy.MiddlewareObj<APIGatewayProxyEventV2> {
  return {
    before: (request) => {
      const { event } = request;
      const contentType = event.headers?.['content-type'];
      const raw =
        event.body === undefined || event.body === null ? '' : event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
      if (raw.trim() === '') throw new BadRequest('A JSON request body is required');
      if (!contentType || !JSON_MEDIA_TYPE.test(contentType)) {
        throw new UnsupportedMediaType(`Expected Content-Type application/json, got ${contentType ? JSON.stringify(contentType) : 'none'}`);
      }
      if (Buffer.byteLength(raw, 'utf8') > MAX_BODY_BYTES) throw new ContentTooLarge(`The request body is larger than ${MAX_BODY_BYTES} bytes`);
      if (jsonNestsDeeperThan(raw)) throw new BadRequest(`The request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`);
      try {
        (event as { body: unknown }).body = JSON.parse(raw);
      } catch (error) {
        throw new BadRequest(`The request body is not valid JSON: ${(error as Error).message}`);
      }
    },
  };
}
