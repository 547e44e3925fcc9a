import { consoleFile, consolePage } from '#lib/console/console-files';
import { httpHandler } from '#lib/http/handler';
import { getConsoleEndpoint } from '#lib/service/endpoints';

/** GET /console (and /console/): the page; GET /console/{proxy+}: its assets (docs/console.md). */
export const getConsole = httpHandler(getConsoleEndpoint, async ({ params }) => (params.proxy ? consoleFile(params.proxy) : consolePage()));
