/** A stored ISO timestamp in the reader's own locale and time zone, as every list page shows it. */
export const localTime = (iso: string): string => new Date(iso).toLocaleString();
