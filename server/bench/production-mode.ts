/**
 * Imported first by the bench runner, because libraries read NODE_ENV once, as they load: measure
 * them as a deployment runs them (graphql-js, for one, drops a development-only check from every
 * type test it makes, about 5% of an API request). Plaza's own settings do not come from here: the
 * harness passes them to loadConfig explicitly, with one exception below.
 */
process.env.NODE_ENV ??= 'production';
// The logger takes its level as its module loads, before any loadConfig: the harness's LOG_LEVEL reaches the
// config but not the logger, so every request of an in-process benchmark was logged at info, a synchronous
// write to stdout of 2-4 ms a request on a busy machine and the largest part of a log query's time.
process.env.LOG_LEVEL ??= 'warn';
