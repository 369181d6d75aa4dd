import { useEffect } from 'react';

/** Sets the document title, which screen readers announce on navigation. */
export function usePageTitle(title: string) {
  useEffect(() => {
    document.title = `${title} · Mailroom`;
  }, [title]);
}
