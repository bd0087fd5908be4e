/** "YYYY-MM-DD HH:mm:ss" in UTC, the time format of the status routes. */
export function formatTime(ms: number): string {
  return new Date(ms).toISOString().replace("T", " ").slice(0, 19);
}
