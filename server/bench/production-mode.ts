/**
 * Imported first by the bench runner, because libraries read NODE_ENV once, as they load: measure
 * them as a deployment runs them (graphql-js, for one, drops a development-only check from every
 * type test it makes, about 5% of an API request). Plaza's own settings do not come from here: the
 * harness passes them to loadConfig explicitly.
 */
process.env.NODE_ENV ??= 'production';
