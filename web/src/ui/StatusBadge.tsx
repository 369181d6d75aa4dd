import { Badge } from '@mantine/core';

const TONES = { good: 'teal.9', warn: 'orange.9', bad: 'red.9', neutral: 'gray.7', info: 'indigo.7' } as const;

export type Tone = keyof typeof TONES;

/** A state label, filled in dark tones so its white text keeps 4.5:1 contrast. */
export function StatusBadge({ tone, children, label }: { tone: Tone; children: string; label?: string }) {
  return (
    <Badge color={TONES[tone]} variant="filled" aria-label={label}>
      {children}
    </Badge>
  );
}
