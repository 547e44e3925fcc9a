import { consoleFile, consolePage } from '#lib/console/console-files';
import { httpHandler } from '#lib/http/handler';
import { consoleEndpoint } from '#lib/service/endpoints';

/** GET /console (and /console/): the page; GET /console/{proxy+}: its assets (docs/console.md). */
export const getConsole = httpHandler(consoleEndpoint, async ({ params }) => (params.proxy ? consoleFile(params.proxy) : consolePage()));
