#!/usr/bin/env node
import { Command, CommanderError, Option } from 'commander';
import { CliError, INTERRUPTED_EXIT_CODE } from './errors.js';
import { errorColours } from './output.js';
import { DEFAULT_LIMIT, EVENTS, STATUSES } from './parse.js';
import { CLI_VERSION } from './version.js';

/**
 * A command's code is loaded when it runs, not at start-up: ws, graphql-ws, @inquirer/prompts and node:https
 * took most of a bare `plaza --help`'s 1.2-1.8 s on this machine, and each command needs few of them.
 */
function lazy<A extends unknown[]>(load: () => Promise<(...args: A) => Promise<void>>): (...args: A) => Promise<void> {
  return async (...args) => (await load())(...args);
}

const json = () => new Option('--json', 'print machine-readable JSON (one object per line for lists)');
const collect = (value: string, previous: string[]) => [...previous, value];

const program = new Command('plaza')
  .description('Plaza from a terminal: your apps, their webhook deliveries live, and the delivery log')
  .version(CLI_VERSION)
  .addHelpText(
    'after',
    `
Environment:
  PLAZA_URL    the Plaza to talk to (default http://localhost:4000, or the one of your last plaza login)
  PLAZA_TOKEN  a sign-in or API token; wins over the token plaza login stored
  NO_COLOR     set to anything to print without colour (colour is only used on a terminal anyway)`,
  )
  .showHelpAfterError('(run with --help for usage)')
  // A command's options belong to the command they follow: without it, `plaza endpoints add --app` would have
  // --app taken by `plaza endpoints` (which lists with --app) before `add` saw it.
  .enablePositionalOptions()
  .exitOverride();

program
  .command('login')
  .description('store an API token for PLAZA_URL (mode 0600 under $XDG_CONFIG_HOME or ~/.config/plaza); reads it from stdin when piped')
  .addOption(json())
  .action(lazy(async () => (await import('./commands/account.js')).login));
program
  .command('logout')
  .description('delete the stored token for PLAZA_URL')
  .addOption(json())
  .action(lazy(async () => (await import('./commands/account.js')).logout));
program
  .command('whoami')
  .description('who the token signs you in as, and on which Plaza')
  .addOption(json())
  .action(lazy(async () => (await import('./commands/account.js')).whoami));
program
  .command('apps')
  .description('your apps with their review status and webhook state')
  .addOption(json())
  .action(lazy(async () => (await import('./commands/apps.js')).apps));

program
  .command('listen')
  .description(
    'forward every new delivery of an app (and events from plaza trigger) to a local URL, byte for byte with valid signatures, until Ctrl-C; the local answers are reported to Plaza and never change the real deliveries. A restarted listener first forwards what was made since the last one it forwarded (at most 24 h back)',
  )
  .requiredOption('--app <id>', 'the app')
  .requiredOption('--forward-to <url>', 'where to send them, e.g. http://localhost:3000/webhooks/plaza (plain http and localhost are fine)')
  .option('--events <list>', `only these events, comma separated: ${EVENTS.join(',')}`)
  .option('--since <time>', 'also forward the deliveries made since then: 2026-11-23T10:00:00Z, or 30m, 2h ago')
  .addOption(json())
  .action(lazy(async () => (await import('./commands/listen.js')).listen));

program
  .command('trigger')
  .description(
    "send a sample event, signed like a real one and marked X-Platform-Test: true, to the app's running plaza listen sessions only (never its webhook URL; nothing is bought or credited)",
  )
  .argument('<event>', EVENTS.join(', '))
  .requiredOption('--app <id>', 'the app')
  .addOption(json())
  .action(lazy(async () => (await import('./commands/listen.js')).trigger));

program
  .command('deliveries')
  .description('the webhook delivery log, newest first, paged through the API')
  .option('--app <id>', 'only this app')
  .option('--status <status>', `only this status: ${STATUSES.join(', ').toLowerCase()}`)
  .option('--event <event>', `only this event: ${EVENTS.join(', ')}`)
  .option('--purchase <purchaseId>', 'only this purchase (APP-<ms>-<suffix>)')
  .option('--endpoint <id>', 'only the deliveries to this endpoint (ep_<ULID>, as plaza endpoints lists them; removed ones too)')
  .option('--since <time>', 'only deliveries created since then: 2026-11-23T10:00:00Z, or 30m, 2h, 7d ago')
  .option('--limit <n>', `at most this many (default ${DEFAULT_LIMIT})`)
  .addOption(json())
  .action(lazy(async () => (await import('./commands/deliveries.js')).deliveries));

program
  .command('tail')
  .description("an app's delivery updates (new deliveries, attempts, status changes) live, until Ctrl-C")
  .requiredOption('--app <id>', 'the app')
  .option('--endpoint <id>', "only the updates of this endpoint's deliveries")
  .addOption(json())
  .action(lazy(async () => (await import('./commands/live.js')).tail));

program
  .command('redeliver')
  .description('send one delivery again now (one MANUAL attempt, same id and body)')
  .argument('<deliveryId>', 'dlv_<ULID>')
  .addOption(json())
  .action(lazy(async () => (await import('./commands/live.js')).redeliver));

program
  .command('recover')
  .description('send again every FAILED delivery of an app since a time (one attempt each, oldest first), showing the progress')
  .requiredOption('--app <id>', 'the app')
  .requiredOption('--since <time>', 'deliveries created since then: 2026-11-23T10:00:00Z, or 30m, 2h, 7d ago')
  .option('--endpoint <id>', "only this endpoint's failed deliveries (every enabled endpoint's when not given)")
  .option('--no-wait', 'queue them and return without watching them go')
  .addOption(json())
  .action(lazy(async () => (await import('./commands/live.js')).recover));

program
  .command('test')
  .description(
    "send a signed sample event, marked X-Platform-Test: true, to the app's real endpoints (sent once each, never retried; nothing is bought) and wait for every answer; exits 3 when a receiver did not take it",
  )
  .argument('<event>', EVENTS.join(', '))
  .requiredOption('--app <id>', 'the app')
  .option('--endpoint <id>', 'only to this endpoint of the app (every endpoint when not given)')
  .addOption(json())
  .action(lazy(async () => (await import('./commands/webhook.js')).testEvent));

const endpoints = program
  .command('endpoints')
  .description("an app's webhook endpoints (id, state, URL, events, pace); add, pause, resume or remove one")
  .enablePositionalOptions()
  .option('--app <id>', 'the app')
  .addOption(json())
  .action(lazy(async () => (await import('./commands/endpoints.js')).listEndpoints));
endpoints
  .command('add')
  .description("another destination for the app's events (no new review; with a sign-in token: Plaza refuses API tokens here); prints its id")
  .requiredOption('--app <id>', 'the app')
  .requiredOption('--url <url>', 'where to POST its deliveries (https; plain http and localhost in development)')
  .option('--description <text>', 'what it is for (one line, at most 200 characters)')
  .option('--events <list>', `only these events, comma separated (default: all, later ones too): ${EVENTS.filter((e) => e !== 'app.test').join(',')}`)
  .option('--rate <n>', 'at most this many requests in any second (1-1000; default: no pace)')
  .addOption(json())
  .action(lazy(async () => (await import('./commands/endpoints.js')).addEndpoint));
endpoints
  .command('pause')
  .description('send nothing to it: its events are recorded and held until it is resumed')
  .argument('<endpointId>', 'ep_<ULID>')
  .addOption(json())
  .action(lazy(async () => (await import('./commands/endpoints.js')).pauseEndpoint));
endpoints
  .command('resume')
  .description('send new events to it again; plaza recover --endpoint sends what was held')
  .argument('<endpointId>', 'ep_<ULID>')
  .addOption(json())
  .action(lazy(async () => (await import('./commands/endpoints.js')).resumeEndpoint));
endpoints
  .command('remove')
  .description('delete it: its pending deliveries give up (FAILED), the log keeps them; asks first on a terminal')
  .argument('<endpointId>', 'ep_<ULID>')
  .option('--yes', 'do not ask (needed when not on a terminal)')
  .addOption(json())
  .action(lazy(async () => (await import('./commands/endpoints.js')).removeEndpoint));

program
  .command('webhook')
  .description("the app's webhook")
  .command('enable')
  .description('resume sending webhook events after an automatic disable; what failed meanwhile is sent again by plaza recover')
  .requiredOption('--app <id>', 'the app')
  .addOption(json())
  .action(lazy(async () => (await import('./commands/webhook.js')).enableWebhook));

const secret = program.command('secret').description("rotate the app's client secret, which signs its webhooks");
secret
  .command('rotate')
  .description('a new client secret; during the overlap the old one keeps signing beside it. While an overlap runs only --overlap 0 is accepted: finish the rotation first')
  .requiredOption('--app <id>', 'the app')
  .option('--overlap <hours>', 'hours the old secret keeps signing: 24 when omitted, 0 switches now (the secret leaked), at most 168')
  .addOption(json())
  .action(lazy(async () => (await import('./commands/secret.js')).rotateSecret));
secret
  .command('finish')
  .description("end a rotation's overlap now: only the new secret signs from the next attempt on")
  .requiredOption('--app <id>', 'the app')
  .addOption(json())
  .action(lazy(async () => (await import('./commands/secret.js')).finishSecretRotation));

const tokens = program.command('tokens').description('your API tokens, for scripts and plaza login (with a sign-in token: API tokens cannot manage tokens)');
tokens
  .command('create')
  .description('a new API token; its value is printed once, alone on stdout')
  .requiredOption('--name <name>', 'what it is for, so you can tell your tokens apart (1..100 characters)')
  .option('--scope <scope>', 'deliveries:read, deliveries:write or apps:read; repeat it for several (default: all three, what every command needs)', collect, [])
  .option('--expires-in-days <days>', 'lifetime, 1..365 (default 90)')
  .addOption(json())
  .action(lazy(async () => (await import('./commands/tokens.js')).createToken));
tokens
  .command('list')
  .description('your API tokens, newest first, revoked and expired ones included (never their values)')
  .option('--limit <n>', 'at most this many (default 500)')
  .addOption(json())
  .action(lazy(async () => (await import('./commands/tokens.js')).listTokens));
tokens
  .command('revoke')
  .description('end one of your API tokens at once (its live connections close too)')
  .argument('<id>', 'tok_<ULID>, as plaza tokens list shows')
  .addOption(json())
  .action(lazy(async () => (await import('./commands/tokens.js')).revokeToken));

const dev = program
  .command('dev')
  .description(
    'development mode only: sign in (development sign-in; stored as the login), create or reuse by name an app whose webhook URL is your local receiver, approve it as the development reviewer and give a development buyer points; prints the app id',
  )
  .enablePositionalOptions()
  .option('--url <url>', "the app's webhook URL, your local receiver (default http://localhost:3000/webhooks/plaza)")
  .option('--name <name>', 'the app to create, or reuse when you have one of that name (default "My dev app")')
  .option('--email <email>', 'the developer to sign in as (default dev@example.com)')
  .option('--buyer <email>', 'the development buyer (default buyer@example.com)')
  .option('--admin <email>', 'the development admin who credits points (default: the first of PLATFORM_ADMIN_EMAILS)')
  .option('--reviewer <email>', 'the development reviewer (default: the first of PLATFORM_REVIEWER_EMAILS, else the admin)')
  .addOption(json())
  .action(lazy(async () => (await import('./commands/dev.js')).dev));
dev
  .command('buy')
  .description('the development buyer buys the app (refunding their earlier purchase of it first), so a real app.purchased is sent; prints the purchase id')
  .requiredOption('--app <id>', 'the app, as plaza dev printed it')
  .option('--buyer <email>', 'the development buyer (default buyer@example.com)')
  .option('--admin <email>', 'the development admin, to top up points or refund (default: the first of PLATFORM_ADMIN_EMAILS)')
  .addOption(json())
  .action(lazy(async () => (await import('./commands/dev.js')).devBuy));

program
  .command('verify')
  .description('check the signatures of a captured webhook request (for support and debugging); exits 1 when one is wrong')
  .option('--secret <secret>', 'the app client secret; repeat it to try both during a rotation', collect, [])
  .requiredOption('--body <file>', 'file holding the exact request body bytes')
  .option('--header <line>', "a request header, 'X-Platform-Signature: sha256=...' or webhook-id / webhook-timestamp / webhook-signature; repeatable", collect, [])
  .option('--tolerance <seconds>', 'how old webhook-timestamp may be before it is reported as outside the replay window', '300')
  .addOption(json())
  .action(lazy(async () => (await import('./commands/verify.js')).verify));

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // Commander already printed the help or the usage error.
    process.exitCode = error.exitCode;
  } else if (error instanceof CliError) {
    process.stderr.write(`${errorColours.red('Error:')} ${error.message}\n`);
    process.exitCode = error.exitCode;
  } else if (error instanceof Error && error.name === 'ExitPromptError') {
    // Ctrl-C at the token prompt.
    process.stderr.write('Cancelled.\n');
    process.exitCode = INTERRUPTED_EXIT_CODE;
  } else {
    process.stderr.write(`${errorColours.red('Unexpected error:')} ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  }
}
