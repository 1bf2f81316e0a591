const dateTimeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export const formatDueDate = (isoDateTime: string) => dateTimeFormat.format(new Date(isoDateTime));
