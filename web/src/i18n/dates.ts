// Every date and time the web app shows is formatted here, by Intl in the user's own locale (the
// browser's, which Intl picks when given none). The formatters are made once: building one is costly.

/** "Jan 2, 2030, 3:04 AM": due dates, submissions, decisions, anything read at a glance. */
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
/** "1/2/2030, 3:04:05 AM", what Date#toLocaleString writes: delivery logs, where seconds tell attempts apart. */
const instant = new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });

/** An ISO 8601 time from the API, to the minute. */
export const formatDateTime = (isoDateTime: string) => dateTime.format(new Date(isoDateTime));

/** An ISO 8601 time from the API, to the second. */
export const formatInstant = (isoDateTime: string) => instant.format(new Date(isoDateTime));
