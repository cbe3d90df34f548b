/** The footer of a paged list: which records are shown and how many match (`3-4 of 9`). */
export function pageFooter({
  offset = 0,
  shown,
  total,
}: {
  offset?: number;
  shown: number;
  total: number;
}): string {
  const from = shown === 0 ? 0 : offset + 1;
  return `${from}-${offset + shown} of ${total}`;
}
