import { Badge } from '@mantine/core';

// Orange 9 is 4.2:1 under white text: the warning tone is a darker orange.
const TONES = { good: 'teal.9', warn: '#a63c06', bad: 'red.9', neutral: 'gray.7', info: 'indigo.9' } as const;

export type Tone = keyof typeof TONES;

/** A state label, filled in dark tones so its white text keeps 4.5:1 contrast. */
export function StatusBadge({ tone, children, label }: { tone: Tone; children: string; label?: string }) {
  return (
    <Badge color={TONES[tone]} variant="filled" aria-label={label}>
      {children}
    </Badge>
  );
}
