/** The sender's domain and each parent domain of it, most specific first. */
export function senderDomains(fromEmail: string): string[] {
  const at = fromEmail.lastIndexOf('@');
  const host =
    at === -1
      ? ''
      : fromEmail
          .slice(at + 1)
          .trim()
          .toLowerCase()
          .replace(/\.$/, '');
  const labels = host.split('.').filter(Boolean);
  return labels.slice(0, -1).map((_, i) => labels.slice(i).join('.'));
}
