import { Button, CopyButton as MantineCopyButton } from '@mantine/core';

/** Copies `value` to the clipboard; `label` names what it copies, for screen readers and tests. */
export function CopyButton({ value, label, size = 'compact-sm' }: { value: string; label: string; size?: string }) {
  return (
    <MantineCopyButton value={value} timeout={1500}>
      {({ copied, copy }) => (
        <Button size={size} variant={copied ? 'filled' : 'default'} color={copied ? 'teal.8' : undefined} onClick={copy} aria-label={label} miw={72}>
          {copied ? 'Copied' : 'Copy'}
        </Button>
      )}
    </MantineCopyButton>
  );
}
